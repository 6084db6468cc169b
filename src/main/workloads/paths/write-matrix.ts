// The distance (or successor) matrix as a file: bin (the course's V × V int32, little-endian,
// row-major), npy (<i4), csv (vertex names; unreachable left empty) or mtx (Matrix Market, pairs
// without a path left out: write-mtx.ts). Written atomically and in
// pieces: binary matrices straight from the matrix's memory, so a 6.4 GB matrix (V = 40 000) needs
// no second copy, nor a byte array beyond JavaScript's 2^32 − 1 bytes; text a megabyte at a time.
import { access, unlink } from 'node:fs/promises'
import { csvCell } from '../../../shared/csv'
import { ApiError } from '../../../shared/errors'
import { INF, type OutputFormat } from '../../../shared/workloads/paths/types'
import { type CsvMatrix, csvMatrixPieces } from '../../io/csv-matrix'
import { type FileData, writeFileAtomic } from '../../io/atomic-write'
import { mtxMatrixPieces } from './write-mtx'

/** Bytes of the matrix handed to the file at a time. */
export const WRITE_PIECE_BYTES = 64 * 2 ** 20

/** Where the successors go beside the distances: `dist.bin` → `dist.next.bin`. */
export function successorPath(output: string): string {
  const m = /^(.*[^/\\])(\.[^./\\]+)$/.exec(output)
  return m ? `${m[1]}.next${m[2]}` : `${output}.next`
}

/** The .npy header of a V × V int32 matrix. */
export function npyHeader(V: number): Uint8Array {
  // Version 1.0 header, padded with spaces so that the data starts on a multiple of 64.
  let dict = `{'descr': '<i4', 'fortran_order': False, 'shape': (${V}, ${V}), }`
  const pad = 64 - ((10 + dict.length + 1) % 64)
  dict += ' '.repeat(pad % 64) + '\n'
  const out = new Uint8Array(10 + dict.length)
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, dict.length & 0xff, dict.length >> 8])
  out.set(new TextEncoder().encode(dict), 10)
  return out
}

/** The matrix's bytes as views of its memory, `pieceBytes` (a multiple of 4) at a time. */
export function* matrixPieces(m: Int32Array, pieceBytes = WRITE_PIECE_BYTES): Generator<Uint8Array> {
  const words = pieceBytes / 4
  for (let at = 0; at < m.length; at += words) {
    const part = m.subarray(at, at + words)
    yield new Uint8Array(part.buffer, part.byteOffset, part.byteLength)
  }
}

/** Distances as numbers, or successors as vertex names; unreachable cells stay empty. Streamed (io/csv-matrix.ts). */
function csvMatrix(m: Int32Array, V: number, name: (v: number) => string, successors: boolean): CsvMatrix {
  // Successors name vertices: each name escaped once, not once per cell.
  const names = successors ? Array.from({ length: V }, (_, v) => csvCell(name(v))) : []
  return {
    rows: V,
    cols: V,
    corner: `${successors ? 'next hop' : 'distance'} from \\ to`,
    rowName: name,
    colName: name,
    cell: (i, j) => {
      const x = m[i * V + j]
      return successors ? (x < 0 ? '' : names[x]) : x === INF ? '' : String(x)
    },
  }
}

/** The file's contents, in pieces (the header and the matrix's own bytes for bin and npy, text pieces for csv and mtx); `bytes()` its size once written. */
export function matrixFile(m: Int32Array, V: number, format: OutputFormat, name: (v: number) => string, successors = false, pieceBytes = WRITE_PIECE_BYTES): { data: FileData; bytes(): number } {
  if (format === 'csv' || format === 'mtx') {
    const counted = { bytes: 0 }
    const data = format === 'csv' ? csvMatrixPieces(csvMatrix(m, V, name, successors), counted) : mtxMatrixPieces(m, V, successors, counted)
    return { data, bytes: () => counted.bytes }
  }
  const header = format === 'npy' ? npyHeader(V) : new Uint8Array(0)
  return {
    data: (function* () {
      if (header.length) yield header
      yield* matrixPieces(m, pieceBytes)
    })(),
    bytes: () => header.length + m.byteLength,
  }
}

/** Refuses, before any work, an output that cannot be written as asked. */
export async function checkOutput(output: string, format: OutputFormat, V: number, withSuccessors: boolean, overwrite: boolean): Promise<void> {
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
  d: Int32Array,
  next: Int32Array | undefined,
  overwrite: boolean,
  pieceBytes = WRITE_PIECE_BYTES,
): Promise<{ bytes: number; next?: string }> {
  const file = matrixFile(d, V, format, name, false, pieceBytes)
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
