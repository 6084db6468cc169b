// Matrix Market text written by shortest paths: the distance (or successor) matrix as a coordinate
// integer general matrix, pairs without a path left out, and a generated graph as a matrix of its
// arcs. Rows and columns are numbered from 1, as the format has it. The matrix is counted first (the
// size line comes before the entries), then written a megabyte of text at a time.
import { INF } from '../../../shared/workloads/paths/types'
import { PIECE_CHARS, textPieces } from '../../io/csv-matrix'

const BANNER = '%%MatrixMarket matrix coordinate integer general\n'

/**
 * The V × V matrix `m` as .mtx pieces: distances, INF left out, or with `successors` each pair's
 * next hop as its 1-based number, none (−1) left out. `counted.bytes` is the total once all are taken.
 */
export function mtxMatrixPieces(m: Int32Array, V: number, successors: boolean, counted: { bytes: number } = { bytes: 0 }, pieceChars = PIECE_CHARS): Generator<Uint8Array> {
  const none = successors ? (x: number) => x < 0 : (x: number) => x === INF
  return textPieces(
    (function* () {
      let entries = 0
      for (let k = 0; k < V * V; k++) if (!none(m[k])) entries++
      yield `${BANNER}% ${successors ? 'next hop (its number) on a shortest path from row to column' : 'shortest distance from row to column'}; pairs without a path are left out\n${V} ${V} ${entries}\n`
      for (let i = 0; i < V; i++) {
        const row = i * V
        let text = ''
        for (let j = 0; j < V; j++) {
          const x = m[row + j]
          if (!none(x)) text += `${i + 1} ${j + 1} ${successors ? x + 1 : x}\n`
        }
        yield text
      }
    })(),
    counted,
    pieceChars,
  )
}

/** A graph's arcs as a .mtx matrix: entry (u + 1, v + 1) of weight w for each arc u → v. */
export function mtxGraphPieces(V: number, src: Int32Array, dst: Int32Array, w: Int32Array, pieceChars = PIECE_CHARS): Generator<Uint8Array> {
  return textPieces(
    (function* () {
      yield `${BANNER}% a weighted directed graph: entry (i, j) of weight w is the arc i -> j\n${V} ${V} ${src.length}\n`
      for (let e = 0; e < src.length; e++) yield `${src[e] + 1} ${dst[e] + 1} ${w[e]}\n`
    })(),
    undefined,
    pieceChars,
  )
}
