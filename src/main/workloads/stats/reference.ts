// The reference semantics of the column statistics, written for clarity, not speed (single pass
// per statistic, comparison-based selection). Every backend must agree with it: median and MAD
// bit for bit, CV within 1e-12 relative in f64.
//
//   mean   = Neumaier-compensated Σx / n
//   std    = sqrt(Neumaier-compensated Σ(x − mean)² / n)      (population σ)
//   cv     = std / mean
//   median = middle value, or (a + b) / 2 of the two middle values (numpy; a/2 + b/2 where a + b
//            overflows), in the order of Float64Array.prototype.sort (−0 before +0)
//   mad    = median of |x − median|, unscaled
//
// In f64, mean and std where the sums leave the f64 range are recomputed scaled (wide-range.ts).
// In f32 the data is first rounded to f32 and every operation is rounded to f32; sums run in
// blocks of 4096 values (a compensated f32 sum of millions of terms drops terms otherwise).
import type { BackendColumnStats, Precision } from '../../../shared/workloads/stats/types'
import { midpoint } from './definitions'
import { wideRangeStats } from './wide-range'

export function referenceColumnStats(values: ArrayLike<number>, precision: Precision = 'f64'): BackendColumnStats {
  const f = precision === 'f64' ? (x: number) => x : Math.fround
  const x = precision === 'f64' ? Float64Array.from(values) : Float64Array.from(values, Math.fround)
  const n = x.length
  if (n === 0) return { mean: NaN, std: NaN, cv: NaN, median: NaN, mad: NaN }
  const mean = f(neumaierSum(x, (v) => v, f) / n)
  const squares = neumaierSum(x, (v) => f(f(v - mean) * f(v - mean)), f)
  const std = f(Math.sqrt(f(squares / n)))
  const moments = wideRangeStats({ mean, std, cv: f(std / mean), median: NaN, mad: NaN }, squares, () => x.slice(), precision)
  const median = medianInPlace(x, precision)
  for (let i = 0; i < n; i++) x[i] = Math.abs(f(x[i] - median))
  const mad = medianInPlace(x, precision)
  return { ...moments, median, mad }
}

/** Neumaier sum of term(x); in f32, of blocks of 4096 terms whose sums are then summed (see compensated.ts). */
function neumaierSum(x: Float64Array, term: (v: number) => number, f: (v: number) => number): number {
  const block = f === Math.fround ? 4096 : x.length
  let total = 0
  let totalC = 0
  for (let b = 0; b < x.length; b += block) {
    let s = 0
    let c = 0
    for (let i = b; i < Math.min(b + block, x.length); i++) {
      const v = term(x[i])
      const t = f(s + v)
      c = Math.abs(s) >= Math.abs(v) ? f(c + f(f(s - t) + v)) : f(c + f(f(v - t) + s))
      s = t
    }
    const t = f(total + s)
    totalC = Math.abs(total) >= Math.abs(s) ? f(totalC + f(f(total - t) + s)) : f(totalC + f(f(s - t) + total))
    totalC = f(totalC + c)
    total = t
  }
  return f(total + totalC)
}

/** Median of x, reordering x. */
function medianInPlace(x: Float64Array, precision: Precision): number {
  const n = x.length
  const lo = (n - 1) >> 1
  const a = select(x, lo)
  if (n % 2 === 1) return a
  // select() leaves everything after lo no smaller than x[lo]: the next order statistic is their minimum.
  let b = x[lo + 1]
  for (let i = lo + 2; i < n; i++) if (less(x[i], b)) b = x[i]
  return midpoint(a, b, precision)
}

/** Total order of Float64Array sort: numeric, with −0 before +0. */
function less(a: number, b: number): boolean {
  return a < b || (a === 0 && b === 0 && 1 / a < 1 / b)
}

/** Quickselect with three-way partitioning (ties are common); pseudo-random pivots keep it linear on sorted input. */
function select(x: Float64Array, k: number): number {
  let left = 0
  let right = x.length - 1
  let seed = 0x9e3779b9
  while (left < right) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
    const pivot = x[left + (seed % (right - left + 1))]
    // x[left, lt) < pivot, x[lt, i) == pivot, x(gt, right] > pivot
    let lt = left
    let gt = right
    let i = left
    while (i <= gt) {
      const v = x[i]
      if (less(v, pivot)) {
        x[i++] = x[lt]
        x[lt++] = v
      } else if (less(pivot, v)) {
        x[i] = x[gt]
        x[gt--] = v
      } else i++
    }
    if (k < lt) right = lt - 1
    else if (k > gt) left = gt + 1
    else return x[k]
  }
  return x[k]
}
