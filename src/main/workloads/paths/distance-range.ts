// Distances the int32 matrix cannot hold, found exactly rather than feared. Every backend computes
// with INF = 2^30 − 1 as "no path" and sums of two entries (at most 2·INF, inside int32), so a
// path whose length reaches INF is never stored: the pair stays INF, as if unreachable. When the
// weights allow that (V − 1 times the largest weight reaches INF), the result is checked: a pair
// (i, v) left at INF although an edge u → v leaves a vertex u that i reaches is a distance that did
// not fit. Its exact length (Dijkstra in doubles from i) then says why the graph is refused.
import { ApiError } from '../../../shared/errors'
import { INF } from '../../../shared/workloads/paths/types'
import { Turns } from '../../workers/in-turns'
import type { Graph } from './graph'
import { type Distances, MAX_DISTANCE, MIN_DISTANCE, outsideInt32 } from './matrix'
import type { Problem } from './problem'

/**
 * Refuses, naming the pair and its length, a result `d` (the problem's distances, V × V, before
 * the reweighting is undone) in which some reachable pair was left at INF. Only problems marked
 * `unbounded` need it; it takes one pass over the edges a vertex, in slices of the event loop.
 */
export async function checkReached(g: Graph, p: Problem, d: Distances, shown: string, name: (v: number) => string, signal?: AbortSignal): Promise<void> {
  // Real distances never overflow (their weights are bounded: text-lines.ts, real.ts).
  if (!p.unbounded || d instanceof Float64Array) return
  const { V, src, dst } = p
  const turns = new Turns(signal)
  for (let i = 0; i < V; i++) {
    const row = i * V
    for (let e = 0; e < src.length; e++)
      if (d[row + dst[e]] === INF && d[row + src[e]] !== INF) throw tooLong(g, p, i, dst[e], shown, name)
    await turns.maybe()
  }
}

function tooLong(g: Graph, p: Problem, from: number, to: number, shown: string, name: (v: number) => string): ApiError {
  const h = p.potential
  const reweighted = dijkstra(g, h, from)[to]
  const x = h ? reweighted - h[from] + h[to] : reweighted
  if (x < MIN_DISTANCE || x > MAX_DISTANCE) return outsideInt32(shown, name(from), name(to), x)
  // Representable, but not after Johnson's reweighting (which made every weight non-negative).
  return new ApiError(
    'invalid-input',
    `${shown}: the shortest distance from ${name(from)} to ${name(to)} is ${x}, but reweighting for the negative weights makes it ${reweighted} there, beyond the int32 distances the matrix computes with (at most ${MAX_DISTANCE})`,
  )
}

/** Shortest distances from `from` in doubles, over the weights made non-negative by `h` (none: as read). */
function dijkstra(g: Graph, h: Float64Array | undefined, from: number): Float64Array {
  const { V, src, dst, w } = g
  // Edges by source (counting sort).
  const start = new Int32Array(V + 1)
  for (let e = 0; e < src.length; e++) start[src[e] + 1]++
  for (let v = 0; v < V; v++) start[v + 1] += start[v]
  const at = start.slice(0, V)
  const order = new Int32Array(src.length)
  for (let e = 0; e < src.length; e++) order[at[src[e]]++] = e
  const dist = new Float64Array(V).fill(Infinity)
  const done = new Uint8Array(V)
  // A binary heap of (distance, vertex), stale entries skipped.
  const heap: [number, number][] = [[0, from]]
  dist[from] = 0
  const push = (item: [number, number]) => {
    heap.push(item)
    for (let k = heap.length - 1; k > 0; ) {
      const parent = (k - 1) >> 1
      if (heap[parent][0] <= heap[k][0]) break
      ;[heap[parent], heap[k]] = [heap[k], heap[parent]]
      k = parent
    }
  }
  const pop = (): [number, number] => {
    const top = heap[0]
    const last = heap.pop()!
    if (heap.length > 0) {
      heap[0] = last
      for (let k = 0; ; ) {
        const l = 2 * k + 1
        const r = l + 1
        let m = k
        if (l < heap.length && heap[l][0] < heap[m][0]) m = l
        if (r < heap.length && heap[r][0] < heap[m][0]) m = r
        if (m === k) break
        ;[heap[m], heap[k]] = [heap[k], heap[m]]
        k = m
      }
    }
    return top
  }
  while (heap.length > 0) {
    const [du, u] = pop()
    if (done[u]) continue
    done[u] = 1
    for (let k = start[u]; k < start[u + 1]; k++) {
      const e = order[k]
      const v = dst[e]
      const x = du + w[e] + (h ? h[u] - h[v] : 0)
      if (x < dist[v]) {
        dist[v] = x
        push([x, v])
      }
    }
  }
  return dist
}
