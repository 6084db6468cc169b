// Following successors: the vertices of the shortest path from one vertex to another.

/** The path from `from` to `to` (both included), or null when there is none. */
export function followPath(next: Int32Array, V: number, from: number, to: number): number[] | null {
  if (from === to) return [from]
  if (next[from * V + to] < 0) return null
  const path = [from]
  for (let v = from; v !== to; ) {
    v = next[v * V + to]
    // Keys strictly decrease in hops along a path: more than V − 1 steps means a broken matrix.
    if (v < 0 || path.length >= V) throw new Error(`the successors of ${from} → ${to} do not lead there`)
    path.push(v)
  }
  return path
}
