// From a graph as read to the problem every backend solves: non-negative int32 weights, each below
// INF or INF itself (no edge: a weight that large is on no distance the matrix holds). Negative
// weights are checked for a negative cycle (Bellman–Ford from a virtual source, which names the
// cycle's vertices) and otherwise removed by Johnson's reweighting w'(u, v) = w + h(u) − h(v) ≥ 0,
// which keeps every shortest path (and so every tie) as it was. Where distances could reach INF,
// the problem is marked `unbounded` and its result checked (distance-range.ts): only a distance
// that does not fit is refused.
import { ApiError } from '../../../shared/errors'
import { INF } from '../../../shared/workloads/paths/types'
import { throwIfAborted } from '../../../shared/cancel'
import { type Graph, isReal, vertexName } from './graph'
import { prepareReal, type RealWeights } from './real'

export interface Problem {
  V: number
  /** Edges with non-negative weights; self-loops included (the matrix ignores them). */
  src: Int32Array
  dst: Int32Array
  w: Int32Array
  selfLoops: number
  /** Johnson potentials when the graph had negative weights: d(u, v) = d'(u, v) − h(u) + h(v). */
  potential?: Float64Array
  /** Whether a distance could reach INF (V − 1 times the largest weight does): checkReached then checks the result. */
  unbounded?: boolean
  /** Real weights (real.ts): `w` then holds the f32 bits of the reweighted weights, for the GPU. */
  real?: RealWeights
}

export function prepareProblem(g: Graph, shown: string, signal?: AbortSignal): Problem {
  if (isReal(g)) return prepareReal(g, shown, signal)
  const { V, src, dst } = g
  const w = g.w as Int32Array
  let selfLoops = 0
  let negative = false
  let maxW = 0
  for (let e = 0; e < src.length; e++) {
    if (src[e] === dst[e]) selfLoops++
    if (w[e] < 0) negative = true
    else if (w[e] > maxW) maxW = w[e]
  }
  if (!negative) {
    const unbounded = (V - 1) * maxW >= INF
    return { V, src, dst, w: maxW >= INF ? w.map((x) => Math.min(x, INF)) : w, selfLoops, ...(unbounded && { unbounded }) }
  }
  const h = potentials(g, shown, signal)
  const w2 = new Int32Array(w.length)
  let maxW2 = 0
  for (let e = 0; e < src.length; e++) {
    // ≥ 0 exactly: the potentials are integers satisfying h(v) ≤ h(u) + w.
    const x = Math.min(w[e] + h[src[e]] - h[dst[e]], INF)
    if (x > maxW2) maxW2 = x
    w2[e] = x
  }
  const unbounded = (V - 1) * maxW2 >= INF
  return { V, src, dst, w: w2, selfLoops, potential: h, ...(unbounded && { unbounded }) }
}

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
