// A weighted directed graph as read from a file: edge lists in typed arrays, vertices 0…V-1, and
// how the file names its vertices (course: 0-based numbers, DIMACS: 1-based, CSV: strings).
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

/** A vertex as the file names it. */
export function vertexName(g: Graph, v: number): string {
  if (g.names) return g.names[v]
  return String(g.format === 'dimacs' ? v + 1 : v)
}

/** The vertex a name stands for, or an 'invalid-argument' error naming the flag and what is allowed. */
export function vertexIndex(g: Graph, name: string, shown: string, what: string): number {
  if (g.names) {
    const i = g.names.indexOf(name)
    if (i < 0) throw new ApiError('invalid-argument', `${what} "${name}": ${shown} has no vertex of that name`)
    return i
  }
  const base = g.format === 'dimacs' ? 1 : 0
  const n = /^\d+$/.test(name.trim()) ? Number(name.trim()) : NaN
  if (!Number.isSafeInteger(n) || n < base || n >= g.V + base)
    throw new ApiError('invalid-argument', `${what} "${name}": ${shown} numbers its vertices ${base}…${g.V - 1 + base}`)
  return n - base
}

/** Growable edge lists for the text readers. */
export class EdgeBuilder {
  private n = 0
  src = new Int32Array(1024)
  dst = new Int32Array(1024)
  w = new Int32Array(1024)

  push(s: number, d: number, w: number): void {
    if (this.n === this.src.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2)
        b.set(a)
        return b
      }
      this.src = grow(this.src)
      this.dst = grow(this.dst)
      this.w = grow(this.w)
    }
    this.src[this.n] = s
    this.dst[this.n] = d
    this.w[this.n] = w
    this.n++
  }

  get length(): number {
    return this.n
  }

  finish(): { src: Int32Array; dst: Int32Array; w: Int32Array } {
    return { src: this.src.slice(0, this.n), dst: this.dst.slice(0, this.n), w: this.w.slice(0, this.n) }
  }
}
