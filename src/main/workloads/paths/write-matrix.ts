// The distance (or successor) matrix as a file: bin (the course's V × V int32, little-endian,
// row-major; integer distances only), npy (distances <f8 with inf for "no path", so that numpy's
// mean and max see no sentinel; successors <i4, −1 for none), csv (vertex names; unreachable left
// empty) or mtx (Matrix Market, pairs without a path left out: write-mtx.ts). Written atomically and in
// pieces: binary matrices straight from the matrix's memory, so a 6.4 GB matrix (V = 40 000) needs
// no second copy, nor a byte array beyond JavaScript's 2^32 − 1 bytes; text a megabyte at a time.
import { access, unlink } from 'node:fs/promises'
import { csvCell } from '../../../shared/csv'
import { ApiError } from '../../../shared/errors'
import { INF, type OutputFormat, type RealArithmetic } from '../../../shared/workloads/paths/types'
import { type Distances, noPath } from './matrix'
import { type CsvMatrix, csvMatrixPieces } from '../../io/csv-matrix'
import { type FileData, writeFileAtomic } from '../../io/atomic-write'
import { arithmeticNote, mtxMatrixPieces } from './write-mtx'

/** Bytes of the matrix handed to the file at a time. */
export const WRITE_PIECE_BYTES = 64 * 2 ** 20

/** Where the successors go beside the distances: `dist.bin` → `dist.next.bin`. */
export function successorPath(output: string): string {
  const m = /^(.*[^/\\])(\.[^./\\]+)$/.exec(output)
  return m ? `${m[1]}.next${m[2]}` : `${output}.next`
}

/** The .npy header of a V × V matrix of int32 (`<i4`) or f64 (`<f8`). */
export function npyHeader(V: number, descr: '<i4' | '<f8' = '<i4'): Uint8Array {
  // Version 1.0 header, padded with spaces so that the data starts on a multiple of 64.
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${V}, ${V}), }`
  const pad = 64 - ((10 + dict.length + 1) % 64)
  dict += ' '.repeat(pad % 64) + '\n'
  const out = new Uint8Array(10 + dict.length)
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, dict.length & 0xff, dict.length >> 8])
  out.set(new TextEncoder().encode(dict), 10)
  return out
}

/** The matrix's bytes as views of its memory, `pieceBytes` (a multiple of 8) at a time. */
export function* matrixPieces(m: Int32Array | Float64Array, pieceBytes = WRITE_PIECE_BYTES): Generator<Uint8Array> {
  const words = pieceBytes / m.BYTES_PER_ELEMENT
  for (let at = 0; at < m.length; at += words) {
    const part = m.subarray(at, at + words)
    yield new Uint8Array(part.buffer, part.byteOffset, part.byteLength)
  }
}

/** Integer distances as f64, INF as ∞, a piece of `pieceBytes` at a time (each its own buffer: a consumer may hold it). */
export function* asFloat64Pieces(m: Int32Array, pieceBytes = WRITE_PIECE_BYTES): Generator<Uint8Array> {
  const words = pieceBytes / 8
  for (let at = 0; at < m.length; at += words) {
    const n = Math.min(words, m.length - at)
    const out = new Float64Array(n)
    for (let k = 0; k < n; k++) {
      const x = m[at + k]
      out[k] = x === INF ? Infinity : x
    }
    yield new Uint8Array(out.buffer)
  }
}

/** The .npy distances: a header and the f64 cells, ∞ for "no path", whatever the arithmetic. */
export function* npyDistancePieces(d: Distances, V: number, pieceBytes = WRITE_PIECE_BYTES): Generator<Uint8Array> {
  yield npyHeader(V, '<f8')
  yield* d instanceof Float64Array ? matrixPieces(d, pieceBytes) : asFloat64Pieces(d, pieceBytes)
}


/** Distances as numbers, or successors as vertex names; unreachable cells stay empty. Streamed (io/csv-matrix.ts). */
function csvMatrix(m: Distances, V: number, name: (v: number) => string, successors: boolean, arithmetic?: RealArithmetic): CsvMatrix {
  const none = noPath(m)
  // Successors name vertices: each name escaped once, not once per cell.
  const names = successors ? Array.from({ length: V }, (_, v) => csvCell(name(v))) : []
  return {
    rows: V,
    cols: V,
    corner: `${successors ? 'next hop' : `distance${arithmeticNote(arithmetic)}`} from \\ to`,
    rowName: name,
    colName: name,
    cell: (i, j) => {
      const x = m[i * V + j]
      return successors ? (x < 0 ? '' : names[x]) : x === none ? '' : String(x)
    },
  }
}

/**
 * The file's contents, in pieces (the matrix's own bytes for bin and successors' npy, f64 for
 * distances' npy, text pieces for csv and mtx); `bytes()` its size once written. `arithmetic`:
 * real distances' (said in the text formats).
 */
export function matrixFile(m: Distances, V: number, format: OutputFormat, name: (v: number) => string, successors = false, pieceBytes = WRITE_PIECE_BYTES, arithmetic?: RealArithmetic): { data: FileData; bytes(): number } {
  if (format === 'csv' || format === 'mtx') {
    const counted = { bytes: 0 }
    const data = format === 'csv' ? csvMatrixPieces(csvMatrix(m, V, name, successors, arithmetic), counted) : mtxMatrixPieces(m, V, successors, counted, undefined, arithmetic)
    return { data, bytes: () => counted.bytes }
  }
  if (format === 'npy' && !successors) return { data: npyDistancePieces(m, V, pieceBytes), bytes: () => npyHeader(V, '<f8').length + V * V * 8 }
  if (m instanceof Float64Array) throw new ApiError('invalid-argument', 'real distances are not written as the course\'s int32 matrix (bin): write npy, csv or mtx')
  const header = format === 'npy' ? npyHeader(V) : new Uint8Array(0)
  return {
    data: (function* () {
      if (header.length) yield header
      yield* matrixPieces(m, pieceBytes)
    })(),
    bytes: () => header.length + m.byteLength,
  }
}

/** Refuses, before any work, an output that cannot be written as asked (`real`: the graph's weights are real). */
export async function checkOutput(output: string, format: OutputFormat, V: number, withSuccessors: boolean, overwrite: boolean, real = false): Promise<void> {
  if (real && format === 'bin') throw new ApiError('invalid-argument', `${output}: the graph's weights are real, and bin is the course's int32 matrix: write --format npy (f64), csv or mtx`)
  if (overwrite) return
  for (const path of withSuccessors ? [output, successorPath(output)] : [output])
    if (await access(path).then(() => true, () => false)) throw new ApiError('io', `${path} exists (use --force to replace it)`)
}

/** Writes the distances (and successors) atomically; on a failure nothing of this run stays. */
export async function writeMatrices(
  output: string,
  format: OutputFormat,
  V: number,
  name: (v: number) => string,
  d: Distances,
  next: Int32Array | undefined,
  overwrite: boolean,
  pieceBytes = WRITE_PIECE_BYTES,
  arithmetic?: RealArithmetic,
): Promise<{ bytes: number; next?: string }> {
  const file = matrixFile(d, V, format, name, false, pieceBytes, arithmetic)
  await writeFileAtomic(output, file.data, { overwrite })
  const bytes = file.bytes()
  if (!next) return { bytes }
  const nextPath = successorPath(output)
  try {
    await writeFileAtomic(nextPath, matrixFile(next, V, format, name, true, pieceBytes).data, { overwrite })
  } catch (e) {
    await unlink(output).catch(() => {})
    throw ApiError.from(e).message.includes('use --force') ? new ApiError('io', `${nextPath} exists (use --force to replace it)`) : e
  }
  return { bytes, next: nextPath }
}
