// From a graph as read to the problem every backend solves: non-negative int32 weights, each below
// INF or INF itself (no edge: a weight that large is on no distance the matrix holds). Negative
// weights are checked for a negative cycle (Bellman–Ford from a virtual source, which names the
// cycle's vertices) and otherwise removed by Johnson's reweighting w'(u, v) = w + h(u) − h(v) ≥ 0,
// which keeps every shortest path (and so every tie) as it was. Where distances could reach INF,
// the problem is marked `unbounded` and its result checked (distance-range.ts): only a distance
// that does not fit is refused.
import { INF } from '../../../shared/workloads/paths/types'
import { type Graph, isReal } from './graph'
import { potentials } from './potentials'
import type { Problem } from './problem'
import { prepareReal } from './real'

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
