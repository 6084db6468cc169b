// The deviation of a matrix too large for a full reference (M = 16 384 would take the serial
// backend hours): max |Δr| over sampled pairs against r computed two-pass in f64 (pairR).
import { pairR } from './pair'
import type { SeriesMatrix } from './series-matrix'

/**
 * `count` pairs (i ≤ j) drawn with a seeded generator, plus the corners of the matrix, so that the
 * last series (the edge of the last block and band) is always among them.
 */
export function samplePairs(m: number, count: number, seed = 1): [number, number][] {
  let s = seed >>> 0 || 1
  // xorshift32: enough to spread pairs over the matrix.
  const next = () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s / 2 ** 32
  }
  const pairs: [number, number][] = [
    [0, 0],
    [0, m - 1],
    [m - 1, m - 1],
    [m - 2, m - 1],
  ]
  for (let p = 0; p < count; p++) {
    const a = Math.floor(next() * m)
    const b = Math.floor(next() * m)
    pairs.push(a <= b ? [a, b] : [b, a])
  }
  return pairs
}

/** Largest |Δr| of `matrix` (m × m) over `pairs`; NaN when a cell is NaN where r is not, or the reverse. */
export function sampledDeviation(series: SeriesMatrix, matrix: ArrayLike<number>, pairs: [number, number][]): number {
  const { m } = series
  let worst = 0
  for (const [i, j] of pairs) {
    const r = i === j ? (series.constant[i] ? null : 1) : pairR(series, i, j)
    const got = matrix[i * m + j]
    if (r === null || Number.isNaN(got)) {
      if ((r === null) !== Number.isNaN(got)) return NaN
      continue
    }
    worst = Math.max(worst, Math.abs(got - r))
  }
  return worst
}
