// Following successors: the vertices of the shortest path from one vertex to another, from a matrix
// in memory or from a saved run's file, of which only the entries along the path are read.
import { ApiError } from '../../../shared/errors'
import { type Graph, vertexName } from './graph'
import { openIntMatrix } from './read-matrix'

/**
 * The path from `from` to `to` (both included), or null when there is none; `next(v)` is the
 * successor of v towards `to` (−1: no path).
 */
export async function followPath(next: (v: number) => number | Promise<number>, V: number, from: number, to: number): Promise<number[] | null> {
  if (from === to) return [from]
  const path = [from]
  for (let v = from; v !== to; ) {
    const u = await next(v)
    if (u < 0 && v === from) return null
    // Keys strictly decrease in hops along a path: more than V − 1 steps means a broken matrix.
    if (u < 0 || u >= V || path.length >= V) throw new Error(`the successors of ${from} → ${to} do not lead there`)
    path.push(u)
    v = u
  }
  return path
}

/** The path from the successors saved in `file` (bin or npy) for a graph of V vertices. */
export async function followSavedPath(file: string, V: number, from: number, to: number): Promise<number[] | null> {
  const next = await openIntMatrix(file, V)
  try {
    return await followPath((v) => next.at(v, to), V, from, to)
  } finally {
    await next.close()
  }
}

/** The weight of a path in the graph's own weights: the lightest edge of each step. */
export function pathWeight(g: Graph, path: number[]): number {
  const steps = new Map<number, number>()
  for (let i = 0; i + 1 < path.length; i++) steps.set(path[i] * g.V + path[i + 1], Infinity)
  for (let e = 0; e < g.src.length; e++) {
    const key = g.src[e] * g.V + g.dst[e]
    const w = steps.get(key)
    if (w !== undefined && g.w[e] < w) steps.set(key, g.w[e])
  }
  let total = 0
  for (let i = 0; i + 1 < path.length; i++) {
    const w = steps.get(path[i] * g.V + path[i + 1])!
    if (w === Infinity) throw new ApiError('invalid-input', `the successors lead along ${vertexName(g, path[i])} → ${vertexName(g, path[i + 1])}, which the graph has no edge for: they belong to another graph`)
    total += w
  }
  return total
}
