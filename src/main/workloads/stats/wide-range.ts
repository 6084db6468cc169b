// Mean and σ over the whole f64 range. The backends' fast sums overflow once Σx passes ±1.8e308
// (two values of 1e308 do) or (x − mean)² passes it (|x| ≈ 1e154 does), and Σ(x − mean)² loses
// everything below 2^-1022 (values of 1e-200 square to 0). When a backend's mean or squares fall
// outside the range where they are exact, every backend recomputes both here, on the host, from
// the values scaled by the power of two that brings the largest to [0.5, 1): scaling by a power
// of two is exact, so the sums are those of the unscaled values, and the result is scaled back.
// In Σ(x − mean)², deviations that scaling pushes below 2^-1022 lose bits, but their weight
// beside the largest is 2^-1074 each. f32 mode keeps f32 arithmetic, overflow included (it is what f32 hardware gives).
import type { BackendColumnStats, Precision } from '../../../shared/workloads/stats/types'
import { addF64 } from './compensated'

/** Σ(x − mean)² below this may hold squares that underflowed (n · 2^-1074 error over ≥ 2^-968). */
const SQUARES_FLOOR = 2 ** -968

/** Whether the fast mean and Σ(x − mean)² need recomputing with scaling (f64 only). */
export function needsWideRange(mean: number, squares: number, precision: Precision): boolean {
  return precision === 'f64' && !(Number.isFinite(mean) && Number.isFinite(squares) && squares >= SQUARES_FLOOR)
}

/** x · 2^e in steps that keep every intermediate value in range. */
export function ldexp(x: number, e: number): number {
  while (e > 1000) {
    x *= 2 ** 1000
    e -= 1000
  }
  while (e < -1000) {
    x *= 2 ** -1000
    e += 1000
  }
  return x * 2 ** e
}

/** x ↦ x · 2^e, one multiplication where 2^e is a double. */
function scaler(e: number): (x: number) => number {
  if (Math.abs(e) <= 1000) {
    const f = 2 ** e
    return (x) => x * f
  }
  return (x) => ldexp(x, e)
}

/** The exponent e with 2^(e-1) ≤ |x| < 2^e, for finite x ≠ 0. */
function exponentAbove(x: number): number {
  let e = Math.floor(Math.log2(Math.abs(x))) + 1
  // log2 rounds near powers of two: settle e exactly.
  while (ldexp(Math.abs(x), -e) >= 1) e++
  while (ldexp(Math.abs(x), 1 - e) < 1) e--
  return e
}

/**
 * The mean and σ of `values`, exact over the whole f64 range; undefined when a value is not finite
 * (the fast result then stands: it is what ±∞ or NaN give).
 */
export function wideRangeMoments(values: ArrayLike<number>): { mean: number; squaresOverN: number; scale: number } | undefined {
  const n = values.length
  let top = 0
  for (let i = 0; i < n; i++) {
    const a = Math.abs(values[i])
    if (!(a <= Number.MAX_VALUE)) return undefined
    if (a > top) top = a
  }
  if (top === 0) return { mean: values[0] ?? 0, squaresOverN: 0, scale: 0 }
  const e = exponentAbove(top)
  const scaled = scaler(-e)
  // Values that scaling would push below 2^-1022 are summed unscaled, apart: the large ones can
  // cancel (1e308 − 1e308) and leave the mean to the small ones, which must then keep every bit.
  const small = ldexp(1, e - 970)
  const big = { s: 0, c: 0 }
  const rest = { s: 0, c: 0 }
  for (let i = 0; i < n; i++) {
    const x = values[i]
    if (Math.abs(x) >= small) addF64(big, scaled(x))
    else addF64(rest, x) // |x| < 2^55: no overflow
  }
  // The scaled mean of the large ones lies in (−1, 1): their scaled Σ is below n.
  const mean = ldexp((big.s + big.c) / n, e) + (rest.s + rest.c) / n
  const m = scaled(mean)
  const sq = { s: 0, c: 0 }
  for (let i = 0; i < n; i++) {
    const d = scaled(values[i]) - m // |d| < 2
    addF64(sq, d * d)
  }
  return { mean, squaresOverN: (sq.s + sq.c) / n, scale: e }
}

/** The fast statistics, their mean, σ and CV recomputed with scaling where the fast sums left the range. */
export function wideRangeStats(fast: BackendColumnStats, squares: number, values: () => ArrayLike<number>, precision: Precision): BackendColumnStats {
  if (!needsWideRange(fast.mean, squares, precision)) return fast
  const wide = wideRangeMoments(values())
  if (!wide) return fast
  // σ = sqrt(Σd²/n) · 2^e, with Σd²/n in [0, 4): the root is taken before scaling back, so it neither overflows nor underflows.
  const std = ldexp(Math.sqrt(wide.squaresOverN), wide.scale)
  return { ...fast, mean: wide.mean, std, cv: std / wide.mean }
}
