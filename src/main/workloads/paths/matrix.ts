// The distance matrix every backend starts from, and what its results become.
//
// Distances are int32 with INF = 2^30 − 1 for "no path": two of them add up without overflow. With
// successors (`paths`) a second u32 matrix holds each pair's path key hops·2^16 + first hop, so that
// every backend keeps, among the shortest paths, the one with fewest edges and then the smallest
// first hop: the lexicographic minimum of (distance, hops, first hop), which does not depend on the
// order of relaxations (plain or blocked, any thread count, any GPU variant). Composing i→k with
// k→j gives key(i, k) + hops(k, j)·2^16, saturated at KEY_NONE, so INF pairs never win a tie.
import { ApiError } from '../../../shared/errors'
import { INF } from '../../../shared/workloads/paths/types'
import type { Problem } from './problem'

/** "No path" of real weights on the GPU (real.ts): 2^126 as f32, two of which add up to 2^127, still finite. */
export const F32_NONE = 2 ** 126
/** F32_NONE's bit pattern, as the int32 matrix holds it. */
export const F32_NONE_BITS = 0x7e800000

/** A distance matrix: int32 (INF: no path), or f64 for real weights (∞: no path). */
export type Distances = Int32Array | Float64Array

/** The value of "no path" in `d`. */
export const noPath = (d: Distances): number => (d instanceof Float64Array ? Infinity : INF)

/** Key of an unreachable pair. */
export const KEY_NONE = 0xffffffff
/** Key of (i, i): no hops, and a first hop above every vertex, so that no path ties with it. */
export const KEY_SELF = 0x0000ffff
/** Successors need first hops below KEY_SELF's. */
export const MAX_PATHS_VERTICES = 0xffff

export interface Layout {
  /** Words from one row to the next (≥ V: padding columns hold INF). */
  stride: number
  /** Rows (≥ V: padding rows are isolated vertices, 0 on their diagonal). */
  rows: number
  /** The matrix row of `d`'s first row, to fill a run of rows alone (default 0). */
  row0?: number
}

/** Cells filled between two chances for a thread's termination to take effect (4 MiB). */
const FILL_PIECE = 1 << 20

/**
 * Fills `d` (and `key`) with the edges of `p`: 0 on the diagonal, the smallest weight of each
 * (source, target) pair, INF elsewhere. Self-loops are ignored. Returns the number of duplicate edges.
 * A real problem's words are f32 bit patterns of non-negative weights, which order as the int32
 * words do; its "no path" is F32_NONE_BITS.
 */
export function fillMatrix(p: Problem, d: Int32Array, key: Uint32Array | undefined, layout: Layout = { stride: p.V, rows: p.V }): number {
  const { stride, rows, row0 = 0 } = layout
  const none = p.real ? F32_NONE_BITS : INF
  // In pieces: one fill is a builtin no cancel interrupts, and over a whole matrix (6.4 GB at
  // V = 40 000) it ran on for seconds after the thread was told to stop, still taking memory.
  for (let at = 0, n = rows * stride; at < n; at += FILL_PIECE) {
    d.fill(none, at, Math.min(n, at + FILL_PIECE))
    key?.fill(KEY_NONE, at, Math.min(n, at + FILL_PIECE))
  }
  for (let i = 0; i < Math.min(rows, stride - row0); i++) {
    d[i * stride + row0 + i] = 0
    if (key) key[i * stride + row0 + i] = KEY_SELF
  }
  let duplicates = 0
  const { src, dst, w } = p
  const end = row0 + rows
  for (let e = 0; e < src.length; e++) {
    const s = src[e]
    const t = dst[e]
    if (s === t || s < row0 || s >= end) continue
    const at = (s - row0) * stride + t
    if (d[at] !== none) duplicates++
    if (w[e] < d[at]) {
      d[at] = w[e]
      if (key) key[at] = 0x10000 | t
    }
  }
  return duplicates
}

/** Moves rows of stride `stride` together to stride V, in place; returns the V × V part. */
export function compact<T extends Int32Array | Uint32Array>(m: T, V: number, stride: number): T {
  if (stride !== V) for (let i = 1; i < V; i++) m.copyWithin(i * V, i * stride, i * stride + V)
  return m.subarray(0, V * V) as T
}

/** Distances an int32 matrix holds: INF itself means unreachable. */
export const MIN_DISTANCE = -(2 ** 31)
export const MAX_DISTANCE = INF - 1

/** The refusal of a shortest distance the matrix cannot hold, naming the pair. */
export function outsideInt32(shown: string, from: string, to: string, x: number): ApiError {
  return new ApiError(
    'invalid-input',
    `${shown}: the shortest distance from ${from} to ${to} is ${x}, outside the int32 distances the matrix holds (${MIN_DISTANCE} … ${MAX_DISTANCE}; ${INF} means unreachable)`,
  )
}

/**
 * Undoes Johnson's reweighting in place: d(u, v) = d'(u, v) − h(u) + h(v) for every finite pair,
 * computed in doubles (exact here). A distance the matrix cannot hold is refused with its pair,
 * named by `name`, rather than wrapped around or read as unreachable. Real distances (f64) come
 * from their solver in the graph's own weights already (real.ts): nothing to undo.
 */
export function unweight(d: Distances, V: number, h: Float64Array, shown: string, name: (v: number) => string): void {
  if (d instanceof Float64Array) return
  for (let i = 0; i < V; i++) {
    const row = i * V
    for (let j = 0; j < V; j++) {
      if (d[row + j] === INF) continue
      const x = d[row + j] - h[i] + h[j]
      if (x < MIN_DISTANCE || x > MAX_DISTANCE) throw outsideInt32(shown, name(i), name(j), x)
      d[row + j] = x
    }
  }
}

/**
 * The successor matrix from path keys: the first hop, i on the diagonal, −1 where there is no path.
 * It takes the keys' memory (a second V × V matrix would not fit beside the others at V = 40 000):
 * the keys are gone afterwards.
 */
export function successors(key: Uint32Array, V: number): Int32Array {
  const next = new Int32Array(key.buffer, key.byteOffset, V * V)
  for (let i = 0; i < V; i++)
    for (let j = 0; j < V; j++) {
      const k = key[i * V + j]
      next[i * V + j] = i === j ? i : k === KEY_NONE ? -1 : k & 0xffff
    }
  return next
}
