// The independent reference the correlation tests check every backend against: Pearson's r from
// its definition with exact (Shewchuk) sums, and the test data sets that cross every edge.
import { fsum } from './stats-reference'

/** r of two series from the formula: Σ(x − x̄)(y − ȳ) / √(Σ(x − x̄)² Σ(y − ȳ)²), every sum exact; NaN for a constant series. */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length
  const xs = Array.from(x)
  const ys = Array.from(y)
  if (xs.every((v) => v === xs[0]) || ys.every((v) => v === ys[0])) return NaN
  const mx = fsum(xs) / n
  const my = fsum(ys) / n
  const dx = xs.map((v) => v - mx)
  const dy = ys.map((v) => v - my)
  const sxy = fsum(dx.map((v, i) => v * dy[i]))
  const sxx = fsum(dx.map((v) => v * v))
  const syy = fsum(dy.map((v) => v * v))
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)))
}

/** The full m × m matrix from the formula, for series laid out one after another. */
export function pearsonMatrix(values: Float64Array, m: number, n: number): Float64Array {
  const row = (i: number) => values.subarray(i * n, (i + 1) * n)
  const out = new Float64Array(m * m)
  for (let i = 0; i < m; i++) {
    out[i * m + i] = pearson(row(i), row(i)) === pearson(row(i), row(i)) ? 1 : NaN
    for (let j = i + 1; j < m; j++) out[i * m + j] = out[j * m + i] = pearson(row(i), row(j))
  }
  return out
}

/** Largest |a − b| over the cells; NaN where exactly one of them is NaN. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) || Number.isNaN(b[i])) {
      if (Number.isNaN(a[i]) !== Number.isNaN(b[i])) return NaN
      continue
    }
    worst = Math.max(worst, Math.abs(a[i] - b[i]))
  }
  return worst
}

/** mulberry32, seeded: test data that is the same on every run. */
export function rng(seed: number): () => number {
  let s = seed | 0
  return () => {
    s = (s + 0x6d2b79f5) | 0
    let t = Math.imul(s ^ (s >>> 15), 1 | s)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

/**
 * m series of n samples that cross the edges: a common signal with noise around an offset, one
 * series the negative of another, one identical to another, and (with `constant`) a constant one.
 */
export function edgeSeries(m: number, n: number, seed: number, opts: { offset?: number; constant?: boolean } = {}): Float64Array {
  const r = rng(seed)
  const offset = opts.offset ?? 10
  const common = Array.from({ length: n }, () => r() - 0.5)
  const v = new Float64Array(m * n)
  for (let i = 0; i < m; i++) {
    const weight = (i % 5) / 4
    for (let k = 0; k < n; k++) v[i * n + k] = offset + weight * common[k] + (r() - 0.5)
  }
  const copy = (from: number, to: number, sign: number) => {
    for (let k = 0; k < n; k++) v[to * n + k] = sign * v[from * n + k]
  }
  if (m >= 2) copy(0, m - 1, -1) // r(0, m − 1) = −1
  if (m >= 4) copy(1, 2, 1) // r(1, 2) = 1
  if (opts.constant && m >= 3) v.fill(3.25, (m - 2) * n, (m - 1) * n)
  return v
}
