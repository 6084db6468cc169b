// A weighted directed graph as read from a file: edge lists in typed arrays, vertices 0…V-1, and
// how the file names its vertices (course: 0-based numbers, DIMACS and Matrix Market: 1-based, CSV: strings).
import { ApiError } from '../../../shared/errors'
import type { GraphFormat } from '../../../shared/workloads/paths/types'

export interface Graph {
  format: GraphFormat
  V: number
  /** Edges as read (duplicates and self-loops included). */
  src: Int32Array
  dst: Int32Array
  w: Int32Array
  /** CSV: the vertices' names, in order of first appearance. */
  names?: string[]
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
export function allocateEdges(E: number, what: string): EdgeArrays {
  try {
    return { src: new Int32Array(E), dst: new Int32Array(E), w: new Int32Array(E) }
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
    const bytes = 12 * E
    throw new ApiError('invalid-input', `${what}: the edge arrays (source, target and weight, 12 bytes an edge) need ${bytes} bytes (${(bytes / 2 ** 30).toFixed(1)} GiB), more than can be allocated here`)
  }
}

/** Growable edge lists for the text readers; `where()` names the place being read (file:line). */
export class EdgeBuilder {
  private n = 0
  private a: EdgeArrays

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
    this.a.w[this.n] = w
    this.n++
  }

  private resize(E: number, what: string): void {
    const b = allocateEdges(E, what)
    b.src.set(this.a.src.subarray(0, this.n))
    b.dst.set(this.a.dst.subarray(0, this.n))
    b.w.set(this.a.w.subarray(0, this.n))
    this.a = b
  }

  get length(): number {
    return this.n
  }

  /** The edges; no copy when the room was exactly filled (as reserved). */
  finish(): EdgeArrays {
    const { src, dst, w } = this.a
    if (this.n === src.length) return this.a
    return { src: src.slice(0, this.n), dst: dst.slice(0, this.n), w: w.slice(0, this.n) }
  }
}
