// Matrix Market text written by shortest paths: the distance (or successor) matrix as a coordinate
// integer general matrix (real for real distances), pairs without a path left out (a graph's arcs: write-graph.ts). Rows and
// columns are numbered from 1, as the format has it. The matrix is counted first (the size line
// comes before the entries), then encoded a piece at a time (io/text-pieces.ts).
import { INF, type RealArithmetic } from '../../../shared/workloads/paths/types'
import { type Distances, noPath } from './matrix'
import { PIECE_BYTES, TextPieces } from '../../io/text-pieces'

export const MTX_BANNER = '%%MatrixMarket matrix coordinate integer general\n'
const MTX_REAL_BANNER = '%%MatrixMarket matrix coordinate real general\n'

/** What real distances' text says of them (the csv corner, an mtx comment): f64 on the CPU, f32 on the GPU. */
export const arithmeticNote = (arithmetic: RealArithmetic | undefined) => (arithmetic ? ` (real weights in ${arithmetic === 'f64' ? 'f64' : 'f32 on the GPU'})` : '')

/** Whether a cell is left out: no path (distances: `none`, INF or ∞), no next hop (successors). */
export const mtxNone = (successors: boolean, none = INF) => (successors ? (x: number) => x < 0 : (x: number) => x === none)

/** The banner, the comment and the size line of a V × V matrix of `entries` entries; `arithmetic`: real distances'. */
export function mtxHead(V: number, entries: number, successors: boolean, arithmetic?: RealArithmetic): string {
  const banner = arithmetic && !successors ? MTX_REAL_BANNER : MTX_BANNER
  return `${banner}% ${successors ? 'next hop (its number) on a shortest path from row to column' : `shortest distance from row to column${arithmeticNote(arithmetic)}`}; pairs without a path are left out\n${V} ${V} ${entries}\n`
}

/** Row `i` (its cells from `at` in `cells`) as entries, into `out`. */
export function putMtxRow(out: TextPieces, cells: ArrayLike<number>, at: number, V: number, i: number, successors: boolean, noneValue = INF): void {
  const none = mtxNone(successors, noneValue)
  const row = String(i + 1) + ' '
  for (let j = 0; j < V; j++) {
    const x = cells[at + j]
    if (none(x)) continue
    out.put(row)
    out.put(String(j + 1))
    out.put(' ')
    out.put(String(successors ? x + 1 : x))
    out.put('\n')
  }
}

/**
 * The V × V matrix `m` as .mtx pieces: distances, INF left out, or with `successors` each pair's
 * next hop as its 1-based number, none (−1) left out. `counted.bytes` is the total once all are taken.
 */
export function* mtxMatrixPieces(m: Distances, V: number, successors: boolean, counted: { bytes: number } = { bytes: 0 }, pieceBytes = PIECE_BYTES, arithmetic?: RealArithmetic): Generator<Uint8Array> {
  const none = mtxNone(successors, noPath(m))
  let entries = 0
  for (let k = 0; k < V * V; k++) if (!none(m[k])) entries++
  const out = new TextPieces(pieceBytes, counted)
  out.put(mtxHead(V, entries, successors, arithmetic))
  for (let i = 0; i < V; i++) {
    putMtxRow(out, m, i * V, V, i, successors, noPath(m))
    yield* out.filled()
  }
  yield* out.rest()
}

