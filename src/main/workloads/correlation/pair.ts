// Two series overlaid for the dashboard: found by name, their r in f64 from the formula, and
// their values downsampled in the backend to about a chart's width (min and max of each run of
// samples, so a spike still shows).
import { ApiError } from '../../../shared/errors'
import type { PairOverlay } from '../../../shared/workloads/correlation/types'
import type { SeriesMatrix } from './series-matrix'

/** Points per series at most. */
export const PAIR_POINTS = 1000

export function pairIndices(series: SeriesMatrix, pair: string[], shown: string): [number, number] {
  if (pair.length !== 2) throw new ApiError('invalid-argument', `pair takes two series names, got ${pair.length}`)
  const at = pair.map((name) => {
    const i = series.names.indexOf(name)
    if (i < 0) throw new ApiError('invalid-argument', `${shown} has no series ${JSON.stringify(name)}; its series are ${series.names.slice(0, 8).join(', ')}${series.m > 8 ? ', …' : ''}`)
    return i
  })
  return [at[0], at[1]]
}

/** Pearson r of rows a and b, two-pass in f64; null when either is constant. */
export function pairR(series: SeriesMatrix, a: number, b: number): number | null {
  if (series.constant[a] || series.constant[b]) return null
  const { n, values } = series
  const x = values.subarray(a * n, (a + 1) * n)
  const y = values.subarray(b * n, (b + 1) * n)
  let mx = 0
  let my = 0
  for (let k = 0; k < n; k++) {
    mx += x[k]
    my += y[k]
  }
  mx /= n
  my /= n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let k = 0; k < n; k++) {
    const dx = x[k] - mx
    const dy = y[k] - my
    sxy += dx * dy
    sxx += dx * dx
    syy += dy * dy
  }
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx) / Math.sqrt(syy)))
}

export function pairOverlay(series: SeriesMatrix, a: number, b: number, points = PAIR_POINTS): PairOverlay {
  const { n, values } = series
  const rows = [values.subarray(a * n, (a + 1) * n), values.subarray(b * n, (b + 1) * n)]
  const base = { names: [series.names[a], series.names[b]] as [string, string], indices: [a, b] as [number, number], r: pairR(series, a, b) }
  if (n <= points) return { ...base, x: Array.from({ length: n }, (_, k) => k), values: [Array.from(rows[0]), Array.from(rows[1])], step: 1 }
  // Two points per run of `step` samples: its extremes, in the order they occur.
  const step = Math.ceil((2 * n) / points)
  const x: number[] = []
  const out: [number[], number[]] = [[], []]
  for (let k0 = 0; k0 < n; k0 += step) {
    const k1 = Math.min(n, k0 + step)
    x.push(k0, k0 + Math.floor((k1 - k0) / 2))
    rows.forEach((row, s) => {
      let lo = k0
      let hi = k0
      for (let k = k0; k < k1; k++) {
        if (row[k] < row[lo]) lo = k
        if (row[k] > row[hi]) hi = k
      }
      out[s].push(row[Math.min(lo, hi)], row[Math.max(lo, hi)])
    })
  }
  return { ...base, x, values: out, step }
}
