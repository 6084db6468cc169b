// A matrix's duplicate entries summed, as SciPy's sparse matrices sum them (coo → csr, which
// scipy.sparse.csgraph reads): entries of one row and column become one arc whose weight is their
// sum, added in the order the file gives them (a symmetric matrix's mirrored entries after all the
// file's own, as scipy.io.mmread appends them); an explicit zero, or a sum of zero, stays an arc of
// weight 0. Matrix Market only: the graph formats (DIMACS, CSV) keep parallel arcs, the shortest counting.
import { ApiError } from '../../../shared/errors'
import { EdgeBuilder, type Graph, MAX_ABS_WEIGHT } from './graph'

type Edges = Pick<Graph, 'src' | 'dst' | 'w' | 'largest'>

/** Edge indices sorted by (source, target), each key's in their own order: two stable counting sorts. */
function byKey(src: Int32Array, dst: Int32Array, V: number): Int32Array {
  const E = src.length
  const pass = (key: Int32Array, from: Int32Array): Int32Array => {
    const start = new Int32Array(V + 1)
    for (let k = 0; k < E; k++) start[key[from[k]] + 1]++
    for (let v = 0; v < V; v++) start[v + 1] += start[v]
    const out = new Int32Array(E)
    for (let k = 0; k < E; k++) out[start[key[from[k]]]++] = from[k]
    return out
  }
  return pass(src, pass(dst, Int32Array.from({ length: E }, (_, k) => k)))
}

/**
 * The edges with each (source, target)'s duplicates summed into its first, or the same edges when
 * none repeats. `integer`: a file whose field is integer, whose sums must stay in ±(2^30 − 1) (a real
 * field's may pass it and make the graph real-weighted). `shown` names the file in messages.
 */
export function sumDuplicates(e: Edges, V: number, integer: boolean, shown: string): Edges {
  const { src, dst, w } = e
  const order = byKey(src, dst, V)
  const E = src.length
  // The first edge of each key, and the sum of its group there.
  const first = new Int32Array(E).fill(-1)
  const sums = Float64Array.from(w)
  let repeated = false
  for (let k = 0; k < E; ) {
    const head = order[k]
    let sum = w[head]
    let j = k + 1
    for (; j < E && src[order[j]] === src[head] && dst[order[j]] === dst[head]; j++) {
      sum += w[order[j]]
      first[order[j]] = head
      repeated = true
    }
    sums[head] = sum
    if (j > k + 1 && integer && !(Math.abs(sum) <= MAX_ABS_WEIGHT))
      throw new ApiError('invalid-input', `${shown}: the ${j - k} entries of row ${src[head] + 1}, column ${dst[head] + 1} sum to ${sum}, beyond ±${MAX_ABS_WEIGHT} (an integer field's weights; scipy sums duplicate entries)`)
    k = j
  }
  if (!repeated) return e
  const out = new EdgeBuilder(() => `${shown} (duplicate entries summed)`)
  out.reserve(V, E)
  for (let k = 0; k < E; k++) if (first[k] < 0) out.push(src[k], dst[k], sums[k] + 0)
  const summed = out.finish()
  // The largest weight a real graph reports is where it was read; a sum was read on several lines.
  return summed.largest && e.largest && summed.largest.weight === e.largest.weight ? { ...summed, largest: e.largest } : summed
}
