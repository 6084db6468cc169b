// Johnson's potentials: Bellman–Ford from a virtual source joined to every vertex by a 0-weight
// edge, whose distances h make every weight non-negative (w + h(u) − h(v) ≥ 0), or the negative
// cycle named.
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { type Graph, vertexName } from './graph'

/**
 * Bellman–Ford from a virtual source joined to every vertex by a 0-weight edge: the shortest
 * distances h, or an 'invalid-input' error naming a negative cycle.
 */
export function potentials(g: Graph, shown: string, signal?: AbortSignal): Float64Array {
  const { V, src, dst, w } = g
  const h = new Float64Array(V)
  const pred = new Int32Array(V).fill(-1)
  for (let pass = 0; pass <= V; pass++) {
    throwIfAborted(signal)
    let changed = -1
    for (let e = 0; e < src.length; e++) {
      const u = src[e]
      const v = dst[e]
      const x = h[u] + w[e]
      if (x < h[v]) {
        h[v] = x
        pred[v] = u
        changed = v
      }
    }
    if (changed < 0) return h
    // V + 1 vertices with the virtual source: a change in pass V means a negative cycle.
    if (pass === V) throw negativeCycle(g, pred, changed, shown)
  }
  throw new ApiError('internal', 'Bellman–Ford did not settle')
}

function negativeCycle(g: Graph, pred: Int32Array, changed: number, shown: string): ApiError {
  // Walking back V steps from a vertex still changing lands on the cycle.
  let x = changed
  for (let i = 0; i < g.V && x >= 0; i++) x = pred[x]
  if (x < 0) return new ApiError('invalid-input', `${shown}: the graph has a negative cycle: shortest paths are undefined`)
  const cycle = [x]
  for (let y = pred[x]; y !== x; y = pred[y]) cycle.push(y)
  cycle.reverse()
  // The weight along the cycle: the smallest edge weight of each step.
  const step = new Map<number, number>()
  for (let i = 0; i < cycle.length; i++) step.set(cycle[i] * g.V + cycle[(i + 1) % cycle.length], Infinity)
  for (let e = 0; e < g.src.length; e++) {
    const key = g.src[e] * g.V + g.dst[e]
    const best = step.get(key)
    if (best !== undefined && g.w[e] < best) step.set(key, g.w[e])
  }
  let total = 0
  for (const w of step.values()) total += w
  const shownCycle = cycle.length > 20 ? [...cycle.slice(0, 20).map((v) => vertexName(g, v)), `… (${cycle.length} vertices)`] : [...cycle, cycle[0]].map((v) => vertexName(g, v))
  return new ApiError('invalid-input', `${shown}: negative cycle ${shownCycle.join(' → ')} (total weight ${total}): shortest paths are undefined`)
}
