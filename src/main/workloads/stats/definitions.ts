// The definitions every backend (CPU or GPU) shares, so that they agree to the bit where they must:
// the middle ranks and their midpoint (numpy's median), |x − m| in the working precision, and how
// σ and CV follow from the sums.
import type { BackendColumnStats, Precision } from '../../../shared/workloads/stats/types'

/** The two middle ranks (equal when n is odd). */
export function middleRanks(n: number): [number, number] {
  return [(n - 1) >> 1, n >> 1]
}

/**
 * Median of the middle pair: (a + b) / 2, rounded to f32 in f32 mode. Where a + b overflows
 * (both beyond ±9e307) it is a/2 + b/2, exact halves rounded once: the true midpoint, where numpy
 * gives ±∞. The median of one value (a = b) is that value.
 */
export function midpoint(a: number, b: number, precision: Precision): number {
  if (a === b) return a
  const sum = a + b
  const mid = Number.isFinite(sum) || !Number.isFinite(a) || !Number.isFinite(b) ? sum / 2 : a / 2 + b / 2
  return precision === 'f64' ? mid : Math.fround(mid)
}

/** |x − center| in the working precision. */
export function absDeviation(x: number, center: number, precision: Precision): number {
  return precision === 'f64' ? Math.abs(x - center) : Math.abs(Math.fround(x - center))
}

/** Statistics from n, the mean, Σ(x − mean)², the median and the MAD: σ = sqrt(Σ/n), CV = σ/mean. */
export function finishStats(n: number, mean: number, squares: number, median: number, mad: number, precision: Precision): BackendColumnStats {
  const round = precision === 'f64' ? (x: number) => x : Math.fround
  const std = round(Math.sqrt(round(squares / n)))
  return { mean, std, cv: round(std / mean), median, mad }
}
