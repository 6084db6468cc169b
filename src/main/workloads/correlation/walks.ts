// The study's random walks, made so that a cluster of them is homogeneous and a few are not.
//
// A phenomenon walks: P₀ = V, Pₖ = Pₖ₋₁ · (1 + u·E), u uniform in [−1, 1). Each series measures it
// with noise of the size of one step, xₖ = Pₖ · (1 + u_own·E), so the series of a cluster correlate
// strongly and alike. An anomalous series is disturbed: the noise accumulates, xₖ = Pₖ · Dₖ with
// Dₖ = Dₖ₋₁ · (1 + u_own·E) a walk of its own, and its correlation with the others drops.
//
// Every u comes from Philox 4×32-10 keyed by the seed, at counter (index / 8, series, 0, 0): one
// call gives eight 16-bit draws q (u = q / 32768). E is rounded to 8 significant bits, so that
// q·E is exact in f32; each factor is then one correctly rounded f32 addition and each step one or
// two correctly rounded f32 multiplications, whether or not a compiler fuses them. The CPU here and
// the GPU (shaders/correlation/generate.wgsl) thus make the same f32 values bit for bit.
import { ApiError } from '../../../shared/errors'
import { philox4x32 } from './philox'

/** The series number of the phenomenon's draws, and of the choice of anomalies. */
export const COMMON_STREAM = 0xffffffff
export const ANOMALY_STREAM = 0xfffffffe
export const MIN_EPS = 1e-6
export const MAX_EPS = 0.1

export interface WalkOptions {
  /** M. */
  series: number
  /** N. */
  length: number
  /** V: where every series starts. */
  start: number
  /** E: the largest relative step. */
  eps: number
  seed: number
  /** K disturbed series. */
  anomalies: number
}

/** E as the generator uses it: e · 2^−p with e in 128…255 (8 significant bits). */
export interface QuantizedEps {
  e: number
  p: number
  value: number
}

export function quantizeEps(eps: number): QuantizedEps {
  if (!(eps >= MIN_EPS && eps <= MAX_EPS)) throw new ApiError('invalid-argument', `eps must be a number in ${MIN_EPS}…${MAX_EPS}, got ${eps}`)
  let p = 0
  while (eps * 2 ** p < 127.5) p++
  let e = Math.round(eps * 2 ** p)
  if (e === 256) {
    e = 128
    p--
  }
  return { e, p, value: e * 2 ** -p }
}

export function checkWalkOptions(o: WalkOptions): void {
  const int = (name: string, v: number, min: number, max: number) => {
    if (!Number.isSafeInteger(v) || v < min || v > max) throw new ApiError('invalid-argument', `${name} must be an integer in ${min}…${max}, got ${v}`)
  }
  int('series', o.series, 2, 2 ** 24)
  int('length', o.length, 2, 2 ** 28)
  int('seed', o.seed, 0, 2 ** 32 - 1)
  int('anomalies', o.anomalies, 0, Math.floor(o.series / 2))
  if (!(Number.isFinite(o.start) && Math.abs(o.start) >= 1e-30 && Math.abs(o.start) <= 1e30))
    throw new ApiError('invalid-argument', `start must be a number of magnitude 1e-30…1e30, got ${o.start}`)
  if (o.series * o.length > 2 ** 32 - 1) throw new ApiError('invalid-argument', `${o.series} series of ${o.length} samples exceed 2^32 values`)
  quantizeEps(o.eps)
}

/** The K disturbed series, ascending: a partial Fisher–Yates shuffle drawn from the anomaly stream. */
export function anomalousSeries(series: number, count: number, seed: number): number[] {
  const order = Uint32Array.from({ length: series }, (_, i) => i)
  const words = new Uint32Array(4)
  for (let i = 0; i < count; i++) {
    philox4x32(i, ANOMALY_STREAM, 0, 0, seed, 0, words)
    const j = i + (words[0] % (series - i))
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  return Array.from(order.subarray(0, count)).sort((a, b) => a - b)
}

/** The step factor fround(1 + q · e · 2^−shift) for a draw q in −32768…32767: q · e is exact in f32. */
export function stepFactor(q: number, e: number, shift: number): number {
  return Math.fround(1 + q * e * 2 ** -shift)
}

/** The 16-bit draw of (series, index), centred: −32768…32767. */
function draws(series: number, seed: number, length: number): Int32Array {
  const q = new Int32Array(length)
  const words = new Uint32Array(4)
  for (let block = 0; block * 8 < length; block++) {
    philox4x32(block, series, 0, 0, seed, 0, words)
    for (let j = 0; j < 8 && block * 8 + j < length; j++) q[block * 8 + j] = ((words[j >> 1] >>> (16 * (j & 1))) & 0xffff) - 32768
  }
  return q
}

/** The phenomenon's factor of every index (index 0 has none: 1). */
export function commonFactors(o: Pick<WalkOptions, 'length' | 'eps' | 'seed'>): Float32Array {
  const { e, p } = quantizeEps(o.eps)
  const q = draws(COMMON_STREAM, o.seed, o.length)
  const f = new Float32Array(o.length)
  f[0] = 1
  for (let k = 1; k < o.length; k++) f[k] = stepFactor(q[k], e, 15 + p)
  return f
}

export interface Walks {
  /** series × length f32 values, series after series. */
  values: Float32Array
  anomalies: number[]
  eps: QuantizedEps
}

/** Every series, on the CPU; `progress` gets the fraction of series made. */
export function generateWalks(o: WalkOptions, progress?: (fraction: number) => void): Walks {
  checkWalkOptions(o)
  const { series: m, length: n } = o
  const eps = quantizeEps(o.eps)
  const anomalies = anomalousSeries(m, o.anomalies, o.seed)
  const disturbed = new Uint8Array(m)
  for (const a of anomalies) disturbed[a] = 1
  const common = commonFactors(o)
  const start = Math.fround(o.start)
  const shift = 15 + eps.p
  const values = new Float32Array(m * n)
  for (let s = 0; s < m; s++) {
    const q = draws(s, o.seed, n)
    let p = start
    let drift = 1
    values[s * n] = start
    for (let k = 1; k < n; k++) {
      p = Math.fround(p * common[k])
      const f = stepFactor(q[k], eps.e, shift)
      if (disturbed[s]) {
        drift = Math.fround(drift * f)
        values[s * n + k] = Math.fround(p * drift)
      } else values[s * n + k] = Math.fround(p * f)
    }
    if (progress && (s & 63) === 63) progress((s + 1) / m)
  }
  progress?.(1)
  return { values, anomalies, eps }
}
