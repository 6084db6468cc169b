// Shortest paths on real weights (a graph whose file has a weight with a fraction: travel times,
// distances in km). Two arithmetics, each stated in the results:
//
// - f64 on the CPU: Floyd–Warshall on the weights as read, negative ones included, k outermost
//   from 0 to V − 1, d[i][j] = min(d[i][j], d[i][k] + d[k][j]) with ∞ for "no path". That is
//   scipy.sparse.csgraph.floyd_warshall's loop: in step k row k and column k do not change
//   (d[k][k] = 0), so each cell's value after step k depends on the k order alone, not on the
//   order of i and j, and the two give the same doubles bit for bit on the same matrix.
// - f32 on the GPU: the weights made non-negative by Johnson's reweighting (computed in f64),
//   rounded to f32 and relaxed by the GPU's kernels on the f32 bit patterns (non-negative floats
//   order as their bits do as i32, so the int32 kernels' comparisons and min() hold unchanged and
//   only their additions become f32 ones). Every stored value is the rounded sum of a path's
//   non-negative weights along a chain of at most f32Depth roundings, so its relative error is at
//   most γ = depth·2^−24 / (1 − depth·2^−24) of the reweighted distance d′ (Higham, Accuracy and
//   Stability of Numerical Algorithms, §3.1); the f64 reweighting is undone afterwards.
//
// Negative cycles are found as for integer weights: Bellman–Ford from a virtual source, in f64.
import { ApiError } from '../../../shared/errors'
import type { PathsBackend } from '../../../shared/workloads/paths/types'
import { throwIfAborted } from '../../../shared/cancel'
import type { Graph } from './graph'
import { F32_NONE, KEY_NONE, KEY_SELF } from './matrix'
import { potentials } from './potentials'
import type { Problem, RealWeights } from './problem'
import { yielder, type SolveOptions } from './solver-contract'

export { F32_NONE }

/** Finite distances on the GPU stay below this (a quarter of F32_NONE: rounding cannot reach it). */
export const F32_MAX_DISTANCE = 2 ** 124


const f32 = new Float32Array(1)
const bits = new Int32Array(f32.buffer)
/** The int32 word of a non-negative f32 (round to nearest, −0 as +0). */
export function f32Bits(x: number): number {
  f32[0] = x
  return bits[0] & 0x7fffffff
}

/**
 * The problem of a real-weighted graph: `real.w` for the CPU, and in `w` the f32 bit patterns of
 * the reweighted non-negative weights (the potentials in `potential`) for the GPU's kernels.
 */
export function prepareReal(g: Graph & { w: Float64Array }, shown: string, signal?: AbortSignal): Problem {
  const { V, src, dst, w } = g
  let selfLoops = 0
  let negative = false
  for (let e = 0; e < src.length; e++) {
    if (src[e] === dst[e]) selfLoops++
    if (w[e] < 0) negative = true
  }
  throwIfAborted(signal)
  const h = negative ? potentials(g, shown, signal) : undefined
  const w32 = new Int32Array(w.length)
  let largest = 0
  for (let e = 0; e < src.length; e++) {
    // ≥ 0 up to rounding of the f64 sum: what rounding makes negative is 0.
    const x = h ? Math.max(0, w[e] + h[src[e]] - h[dst[e]]) : w[e]
    if (x > largest) largest = x
    w32[e] = f32Bits(x)
  }
  const real: RealWeights = { w }
  if ((V - 1) * largest >= F32_MAX_DISTANCE) {
    const where = g.largest ? `; the largest weight is ${g.largest.weight} at ${g.largest.at}` : ''
    real.f32Refused = `${shown}: distances of up to ${V - 1} edges of weight ${largest}${h ? ' (after reweighting for the negative weights)' : ''} may exceed ${F32_MAX_DISTANCE.toExponential(3)}, beyond what the GPU's f32 holds${where}`
  }
  return { V, src, dst, w: w32, selfLoops, real, ...(h && { potential: h }) }
}

/**
 * Fills `d` (f64) with the graph's real weights: 0 on the diagonal, the smallest weight of each
 * pair, ∞ elsewhere; self-loops ignored. Returns the duplicate edges, as fillMatrix does.
 */
export function fillReal(p: Problem, d: Float64Array, key: Uint32Array | undefined): number {
  const { V, src, dst } = p
  const w = p.real!.w
  d.fill(Infinity)
  key?.fill(KEY_NONE)
  for (let i = 0; i < V; i++) {
    d[i * V + i] = 0
    if (key) key[i * V + i] = KEY_SELF
  }
  let duplicates = 0
  for (let e = 0; e < src.length; e++) {
    const s = src[e]
    const t = dst[e]
    if (s === t) continue
    const at = s * V + t
    if (d[at] !== Infinity) duplicates++
    if (w[e] < d[at]) {
      d[at] = w[e]
      if (key) key[at] = 0x10000 | t
    }
  }
  return duplicates
}

/** The f64 Floyd–Warshall, k outermost (SciPy's order), in place; with keys, the tie rule of matrix.ts. */
export async function floydWarshallReal(d: Float64Array, key: Uint32Array | undefined, V: number, opts: SolveOptions = {}): Promise<void> {
  const tick = yielder(opts.signal)
  for (let k = 0; k < V; k++) {
    const kr = k * V
    for (let i = 0; i < V; i++) {
      const ir = i * V
      const dik = d[ir + k]
      if (dik === Infinity) continue
      if (!key) {
        for (let j = 0; j < V; j++) {
          const s = dik + d[kr + j]
          if (s < d[ir + j]) d[ir + j] = s
        }
        continue
      }
      const kik = key[ir + k]
      for (let j = 0; j < V; j++) {
        const s = dik + d[kr + j]
        const cur = d[ir + j]
        if (s <= cur && s !== Infinity) {
          const c = Math.min(kik + (key[kr + j] >>> 16) * 0x10000, KEY_NONE)
          if (s < cur) {
            d[ir + j] = s
            key[ir + j] = c
          } else if (c < key[ir + j]) key[ir + j] = c
        }
      }
    }
    if ((k & 15) === 15) {
      opts.progress?.((k + 1) / V)
      await tick()
    }
  }
}


/**
 * The GPU's f32 result (V × V bit patterns of reweighted distances) as f64 distances in the
 * graph's own weights: F32_NONE (or more) is ∞, the reweighting undone in f64.
 */
export function fromF32(d: Int32Array, V: number, h: Float64Array | undefined): Float64Array {
  const f = new Float32Array(d.buffer, d.byteOffset, V * V)
  const out = new Float64Array(V * V)
  for (let i = 0; i < V; i++)
    for (let j = 0; j < V; j++) {
      const x = f[i * V + j]
      out[i * V + j] = x >= F32_NONE ? Infinity : h ? x - h[i] + h[j] : x
    }
  return out
}

/**
 * Roundings along one stored value's chain at most, for a padded side N: a relaxation's sum is
 * rounded once more than the deeper of the two values it adds, a per-k schedule's values after step
 * k have at most k + 2 (the weight's own rounding included), and each round of a blocked schedule
 * adds at most two chains of B steps (phase 1, then a row or column block reading it) to the values
 * of the round before, and one more in phase 3: at most 2N + N/B + 2 ≤ 3N + 2.
 */
export const f32Depth = (N: number) => 3 * N + 2

/** γ of the f32 bound: the relative error of a reweighted distance on the GPU, for a padded side N. */
export function f32Gamma(N: number): number {
  const nu = f32Depth(N) * 2 ** -24
  return nu / (1 - nu)
}

/**
 * Whether an f32 result `a` (f64 distances, reweighting undone) lies within the stated bound of
 * the f64 result `b`: |a − b| ≤ γ·d′ + slack, with d′ = b + h(i) − h(j) the reweighted distance
 * and slack = V·2^−50·(|b| + |h(i)| + |h(j)|) for the f64 roundings (reweighting and its undoing,
 * and the f64 result's own), and the same pairs unreachable (`bothF32`: `b` is an f32 result too,
 * and γ doubles). Returns the first pair outside, or null.
 */
export function outsideF32Bound(a: Float64Array, b: Float64Array, V: number, N: number, h: Float64Array | undefined, bothF32 = false): { i: number; j: number; a: number; b: number; bound: number } | null {
  // Two f32 results each lie within γ of the exact distances: within 2γ of each other.
  const gamma = f32Gamma(N) * (bothF32 ? 2 : 1)
  for (let i = 0; i < V; i++)
    for (let j = 0; j < V; j++) {
      const x = a[i * V + j]
      const y = b[i * V + j]
      if (x === Infinity || y === Infinity) {
        if (x !== y) return { i, j, a: x, b: y, bound: 0 }
        continue
      }
      const hi = h ? h[i] : 0
      const hj = h ? h[j] : 0
      const reweighted = Math.max(0, y + hi - hj)
      const bound = gamma * reweighted + V * 2 ** -50 * (Math.abs(y) + Math.abs(hi) + Math.abs(hj))
      if (!(Math.abs(x - y) <= bound)) return { i, j, a: x, b: y, bound }
    }
  return null
}

/** The backends that compute on real weights, and why the others do not. */
export const REAL_BACKENDS: readonly PathsBackend[] = ['serial', 'gpu']
export const REAL_BACKENDS_REASON = 'real weights: computed on the CPU by serial (f64 Floyd–Warshall in SciPy\'s order, bit for bit its result) and on one GPU in f32; this backend\'s kernels are int32'

/** The refusal of a backend given a real problem it has no kernels for. */
export function realUnsupported(backend: string): ApiError {
  return new ApiError('invalid-argument', `${backend}: ${REAL_BACKENDS_REASON}`)
}

/**
 * Whether two runs' real distances agree: f64 with f64 byte for byte (the same loop), with keys;
 * otherwise within the f32 bound (successors are not compared: rounding may break ties apart).
 */
export function realResultsAgree(a: { d: Float64Array; key?: Uint32Array; arithmetic?: string; side?: number }, b: typeof a, V: number, h: Float64Array | undefined, same: () => boolean): boolean {
  if (a.arithmetic === 'f64' && b.arithmetic === 'f64') return same()
  const f32 = a.arithmetic === 'f32' ? a : b
  const other = f32 === a ? b : a
  return outsideF32Bound(f32.d, other.d, V, f32.side!, h, other.arithmetic === 'f32') === null
}

/** The refusal of an f32 run when the distances do not fit. */
export function f32Unusable(p: Problem): ApiError | null {
  return p.real?.f32Refused ? new ApiError('invalid-input', p.real.f32Refused) : null
}
