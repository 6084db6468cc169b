// Compensated sums. TwoSum keeps the exact rounding error of every addition, so the result is as if
// computed with twice the working precision, whatever the order: this is what lets backends that
// add in different orders (lanes, slices, threads) agree to ~1e-16 relative instead of ~n·1e-16.
// (TwoSum's error term equals Neumaier's, so results are identical to Neumaier summation.)
import type { Precision } from '../../../shared/workloads/stats/types'

/** A sum and its accumulated rounding errors; the value is `s + c`. */
export interface CompensatedSum {
  s: number
  c: number
}

export function addF64(acc: CompensatedSum, x: number): void {
  const t = acc.s + x
  const z = t - acc.s
  acc.c += acc.s - (t - z) + (x - z)
  acc.s = t
}

/** The same in f32 arithmetic (each operation rounded to f32, as f32 hardware would). */
export function addF32(acc: CompensatedSum, x: number): void {
  const f = Math.fround
  const t = f(acc.s + x)
  const z = f(t - acc.s)
  acc.c = f(acc.c + f(f(acc.s - f(t - z)) + f(x - z)))
  acc.s = t
}

/** Values per block of an f32 sum (see sumF32). */
export const F32_BLOCK = 4096

/**
 * Compensated f32 sum of x[start, end), or of (x − mean)² when `mean` is given, block by block:
 * over millions of terms one compensated f32 sum fails once its compensation outgrows the terms
 * (it absorbs them whole, then drops them), so each block of F32_BLOCK values is summed apart
 * and only the block sums meet in the total.
 */
export function sumF32(x: ArrayLike<number>, start: number, end: number, mean?: number): CompensatedSum {
  const f = Math.fround
  const total = { s: 0, c: 0 }
  for (let b = start; b < end; b += F32_BLOCK) {
    const e = Math.min(b + F32_BLOCK, end)
    let s = 0
    let c = 0
    for (let i = b; i < e; i++) {
      let v = x[i]
      if (mean !== undefined) {
        const d = f(v - mean)
        v = f(d * d)
      }
      const t = f(s + v)
      const z = f(t - s)
      c = f(c + f(f(s - f(t - z)) + f(v - z)))
      s = t
    }
    addF32(total, s)
    total.c = f(total.c + c)
  }
  return total
}

/**
 * Folds partial sums (e.g. one per slice or lane), in the given order, into one value.
 * Both parts of every partial are added, so no partial's compensation is lost.
 */
export function combineSums(parts: readonly CompensatedSum[], precision: Precision): number {
  const add = precision === 'f64' ? addF64 : addF32
  const acc = { s: 0, c: 0 }
  for (const p of parts) {
    add(acc, p.s)
    add(acc, p.c)
  }
  return precision === 'f64' ? acc.s + acc.c : Math.fround(acc.s + acc.c)
}
