// A graph's arcs written in the format its file's name says (read-graph.ts reads it back by the same
// rule): the course's binary format, DIMACS .gr (vertices 1…V), a CSV edge list (source,target,weight;
// vertices named by their 0-based numbers, as the course's format numbers them) or a Matrix Market
// .mtx matrix (entry (u + 1, v + 1) of weight w for each arc u → v). Text is encoded a piece at a time.
import type { GraphFormat } from '../../../shared/workloads/paths/types'
import { PIECE_BYTES, textPieces } from '../../io/text-pieces'
import { courseGraphBytes } from './read-course'
import { MTX_BANNER } from './write-mtx'

/** The lines of each text format: its head, then one line per arc. */
const TEXT: Record<Exclude<GraphFormat, 'course'>, { head(V: number, E: number): string; arc(u: number, v: number, w: number): string }> = {
  dimacs: { head: (V, E) => `c a weighted directed graph of ${V} vertices\np sp ${V} ${E}\n`, arc: (u, v, w) => `a ${u + 1} ${v + 1} ${w}\n` },
  // A CSV edge list names only the vertices its edges name.
  'csv-edges': { head: () => 'source,target,weight\n', arc: (u, v, w) => `${u},${v},${w}\n` },
  mtx: { head: (V, E) => `${MTX_BANNER}% a weighted directed graph: entry (i, j) of weight w is the arc i -> j\n${V} ${V} ${E}\n`, arc: (u, v, w) => `${u + 1} ${v + 1} ${w}\n` },
}

/** The V-vertex graph of arcs src[e] → dst[e] of weight w[e] as a file of `format`, in pieces. */
export function* graphPieces(format: GraphFormat, V: number, src: Int32Array, dst: Int32Array, w: Int32Array, pieceBytes = PIECE_BYTES): Generator<Uint8Array> {
  if (format === 'course') {
    yield courseGraphBytes(V, src, dst, w)
    return
  }
  const { head, arc } = TEXT[format]
  yield* textPieces(
    (function* () {
      yield head(V, src.length)
      for (let e = 0; e < src.length; e++) yield arc(src[e], dst[e], w[e])
    })(),
    undefined,
    pieceBytes,
  )
}
