// Random real-weighted graphs, and their text in each format the shortest-paths readers take.
import { seededRandom } from '../../src/main/workloads/paths/generate-graph'

export interface Arcs {
  V: number
  arcs: [number, number, number][]
}

/**
 * A random directed graph of real weights, each pair at most once, no self-loops; with `negative`
 * some weights are negative but no cycle is (w = base + p(u) − p(v), base ≥ 0); a few vertices unreachable.
 */
export function realGraph(V: number, seed: number, negative: boolean): Arcs {
  const rand = seededRandom(seed)
  const p = Array.from({ length: V }, () => (negative ? rand() * 10 : 0))
  const seen = new Set<number>()
  const arcs: [number, number, number][] = []
  const reached = V - 3
  for (let e = 0; e < V * 4; e++) {
    const u = Math.floor(rand() * reached)
    const v = Math.floor(rand() * V)
    if (u === v || seen.has(u * V + v)) continue
    seen.add(u * V + v)
    // Travel times in hours, distances in km: 0.37 × integers, and arbitrary doubles.
    const base = e % 3 === 0 ? Math.floor(rand() * 100) * 0.37 : rand() * 50
    arcs.push([u, v, base + p[u] - p[v]])
  }
  return { V, arcs }
}

/** String(x) is the shortest text that reads back as x, in JavaScript and in Python alike. */
export const writers = {
  mtx: ({ V, arcs }: Arcs) => `%%MatrixMarket matrix coordinate real general\n${V} ${V} ${arcs.length}\n${arcs.map(([u, v, w]) => `${u + 1} ${v + 1} ${w}`).join('\n')}\n`,
  csv: ({ arcs }: Arcs) => `source,target,weight\n${arcs.map(([u, v, w]) => `v${u},v${v},${w}`).join('\n')}\n`,
  gr: ({ V, arcs }: Arcs) => `p sp ${V} ${arcs.length}\n${arcs.map(([u, v, w]) => `a ${u + 1} ${v + 1} ${w}`).join('\n')}\n`,
}
