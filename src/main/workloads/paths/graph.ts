// A weighted directed graph as read from a file: edge lists in typed arrays, vertices 0…V-1, and
// how the file names its vertices (course: 0-based numbers, DIMACS and Matrix Market: 1-based, CSV: strings).
// Weights are int32 while every one is an integer in ±(2^30 − 1) (the exact integer path); a text
// file with any other weight (0.37, 1.5e-3, 3e9) makes a real-weighted graph, in f64.
import { ApiError } from '../../../shared/errors'
import type { GraphFormat } from '../../../shared/workloads/paths/types'

/** Largest |weight| accepted from text: any more and two distances could overflow int32. */
export const MAX_ABS_WEIGHT = 2 ** 30 - 1

export interface Graph {
  format: GraphFormat
  V: number
  /** Edges as read (duplicates and self-loops included). */
  src: Int32Array
  dst: Int32Array
  /** Int32Array: integer weights; Float64Array: real weights (some weight is not an integer in ±(2^30 − 1)). */
  w: Int32Array | Float64Array
  /** Real weights: the largest magnitude and where it was read (file:line), for the GPU's f32 bound. */
  largest?: { weight: number; at: string }
  /** CSV: the vertices' names, in order of first appearance. */
  names?: string[]
}

/** Whether the graph's weights are real (f64) rather than int32. */
export function isReal(g: { w: Int32Array | Float64Array }): g is { w: Float64Array } {
  return g.w instanceof Float64Array
}

export function edgeCount(g: Graph): number {
  return g.src.length
}

/** DIMACS and Matrix Market number vertices from 1. */
const oneBased = (g: Graph) => g.format === 'dimacs' || g.format === 'mtx'

/** A vertex as the file names it. */
export function vertexName(g: Graph, v: number): string {
  if (g.names) return g.names[v]
  return String(oneBased(g) ? v + 1 : v)
}

/** The vertex a name stands for, or an 'invalid-argument' error naming the flag and what is allowed. */
export function vertexIndex(g: Graph, name: string, shown: string, what: string): number {
  if (g.names) {
    const i = g.names.indexOf(name)
    if (i < 0) throw new ApiError('invalid-argument', `${what} "${name}": ${shown} has no vertex of that name`)
    return i
  }
  const base = oneBased(g) ? 1 : 0
  const n = /^\d+$/.test(name.trim()) ? Number(name.trim()) : NaN
  if (!Number.isSafeInteger(n) || n < base || n >= g.V + base)
    throw new ApiError('invalid-argument', `${what} "${name}": ${shown} numbers its vertices ${base}…${g.V - 1 + base}`)
  return n - base
}

export interface EdgeArrays {
  src: Int32Array
  dst: Int32Array
  w: Int32Array
}

/**
 * Edge arrays of E entries, allocated before the edges are read. When memory runs out V8 throws a
 * bare RangeError ("Array buffer allocation failed"); the error says instead what was asked for:
 * `what` names the file (and line) and the counts.
 */
export function allocateEdges(E: number, what: string, withoutWeights = false): EdgeArrays {
  try {
    return { src: new Int32Array(E), dst: new Int32Array(E), w: new Int32Array(withoutWeights ? 0 : E) }
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
    const bytes = 12 * E
    throw new ApiError('invalid-input', `${what}: the edge arrays (source, target and weight, 12 bytes an edge) need ${bytes} bytes (${(bytes / 2 ** 30).toFixed(1)} GiB), more than can be allocated here`)
  }
}

/**
 * Growable edge lists for the text readers; `where()` names the place being read (file:line).
 * Weights stay int32 until one is not an integer in ±(2^30 − 1); from then on they are f64 and the
 * graph is real-weighted (every double above 2^53 is an integer: "1.5e200" is no int32 weight).
 */
export class EdgeBuilder {
  private n = 0
  private a: EdgeArrays
  private real?: Float64Array
  private largest = { weight: 0, at: '' }

  constructor(private readonly where: () => string) {
    this.a = allocateEdges(1024, where())
  }

  /** Room for the E edges a file announces, made before they are read. */
  reserve(V: number, E: number): void {
    if (E > this.a.src.length) this.resize(E, `${this.where()}: V = ${V}, E = ${E}`)
  }

  push(s: number, d: number, w: number): void {
    if (this.n === this.a.src.length) this.resize(2 * this.n, `${this.where()}: after ${this.n} edges, room for ${2 * this.n}`)
    this.a.src[this.n] = s
    this.a.dst[this.n] = d
    if (!this.real && !(Number.isInteger(w) && Math.abs(w) <= MAX_ABS_WEIGHT)) this.toReal()
    if (this.real) {
      this.real[this.n] = w
      if (Math.abs(w) > this.largest.weight) this.largest = { weight: Math.abs(w), at: this.where() }
    } else {
      this.a.w[this.n] = w
      if (Math.abs(w) > this.largest.weight) this.largest.weight = Math.abs(w)
    }
    this.n++
  }

  /** From int32 weights to f64 ones, those read so far converted exactly. */
  private toReal(): void {
    const real = allocateReal(this.a.src.length, this.where())
    real.set(this.a.w.subarray(0, this.n))
    this.real = real
    this.a.w = new Int32Array(0)
  }

  private resize(E: number, what: string): void {
    const b = allocateEdges(E, what, this.real !== undefined)
    b.src.set(this.a.src.subarray(0, this.n))
    b.dst.set(this.a.dst.subarray(0, this.n))
    if (this.real) {
      const real = allocateReal(E, what)
      real.set(this.real.subarray(0, this.n))
      this.real = real
    } else b.w.set(this.a.w.subarray(0, this.n))
    this.a = b
  }

  get length(): number {
    return this.n
  }

  /**
   * Appends each edge's mirror (target → source) but a self-loop's, in the order they were pushed,
   * its weight negated for a skew-symmetric matrix: as scipy.io.mmread expands a symmetric one.
   */
  mirror(negate: boolean): void {
    const n = this.n
    for (let k = 0; k < n; k++) {
      const [s, d] = [this.a.src[k], this.a.dst[k]]
      if (s === d) continue
      const w = this.real ? this.real[k] : this.a.w[k]
      this.push(d, s, negate ? 0 - w : w)
    }
  }

  /** The edges, and with real weights the largest; no copy when the room was exactly filled (as reserved). */
  finish(): Pick<Graph, 'src' | 'dst' | 'w' | 'largest'> {
    const n = this.n
    const cut = <T extends Int32Array | Float64Array>(m: T): T => (m.length === n ? m : (m.slice(0, n) as T))
    const src = cut(this.a.src)
    const dst = cut(this.a.dst)
    if (this.real) return { src, dst, w: cut(this.real), largest: this.largest }
    return { src, dst, w: cut(this.a.w) }
  }
}

/** f64 weights of E edges, or the error naming what was asked for when memory runs out. */
function allocateReal(E: number, what: string): Float64Array {
  try {
    return new Float64Array(E)
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
    throw new ApiError('invalid-input', `${what}: the real weights (8 bytes an edge) need ${8 * E} bytes (${((8 * E) / 2 ** 30).toFixed(1)} GiB), more than can be allocated here`)
  }
}
