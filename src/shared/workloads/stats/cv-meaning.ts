// When a coefficient of variation says nothing about spread. CV = σ/μ is a measure for data on a
// ratio scale with a mean well away from zero (Everitt & Skrondal, The Cambridge Dictionary of
// Statistics, "coefficient of variation"); for a column centred near 0 — an accelerometer axis
// across gravity, a signed difference — σ/μ is decided by how close μ comes to zero, and a shift of
// the zero (a sensor's offset) changes its size and sign at will. Paralab calls it undefined in
// practice where |μ| < σ/10, i.e. |CV| > 10: it is still reported, marked, and kept from setting a
// chart's scale (it would flatten every other column's bar).

/** |CV| above this: the mean lies within a tenth of a standard deviation of zero. */
export const CV_MEANINGFUL_UP_TO = 10

/** Whether a CV says nothing of the spread: |CV| > 10 or ±∞ (NaN, of a column without numbers or spread, is not). */
export function cvUndefinedInPractice(cv: number | null | undefined): boolean {
  return typeof cv === 'number' && Math.abs(cv) > CV_MEANINGFUL_UP_TO
}

/**
 * Whether a column's statistics (as JSON carries them: NaN and ±∞ as null) have a mean of 0 or ≈ 0
 * against a spread: σ > 0 and |μ| < σ/10, a zero mean's CV included.
 */
export function meanNearZero(s: { mean: number | null; std: number | null } | undefined): boolean {
  return !!s && s.mean !== null && s.std !== null && s.std > 0 && Math.abs(s.mean) * CV_MEANINGFUL_UP_TO < s.std
}

/** The words beside such a value. */
export const CV_UNDEFINED_TEXT = 'mean ≈ 0: undefined in practice'
