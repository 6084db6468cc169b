// `--matrix FILE.npy|FILE.csv`: the full M × M matrix, written whole or not at all
// (src/main/io/atomic-write.ts), over an existing file only with --force, and in pieces: .npy as
// NumPy reads it (<f8 in f64, <f4 in f32, C order) straight from the matrix's memory, .csv as text
// (series names on both sides, empty where r is undefined) a megabyte at a time. Neither holds a
// second copy of the matrix: at M = 16 384 it is 2 GiB in f64, its CSV about 5 GB.
import { writeFileAtomic } from '../../io/atomic-write'
import { csvMatrixPieces } from '../../io/csv-matrix'
import { npyHeader } from './npy'

export type MatrixFormat = 'npy' | 'csv'
/** Bytes of the matrix handed to the file at a time. */
const PIECE_BYTES = 64 * 2 ** 20

export const matrixFormatOf = (path: string): MatrixFormat | undefined => (/\.npy$/i.test(path) ? 'npy' : /\.csv$/i.test(path) ? 'csv' : undefined)

export interface WrittenMatrix {
  path: string
  bytes: number
  dtype: '<f8' | '<f4'
}

export async function writeMatrixFile(path: string, matrix: Float64Array | Float32Array, m: number, names: readonly string[], overwrite = false): Promise<WrittenMatrix> {
  return matrixFormatOf(path) === 'csv' ? writeMatrixCsv(path, matrix, m, names, overwrite) : writeMatrixNpy(path, matrix, m, overwrite)
}

export async function writeMatrixNpy(path: string, matrix: Float64Array | Float32Array, m: number, overwrite = false): Promise<WrittenMatrix> {
  const npy = npyPieces(matrix, m)
  await writeFileAtomic(path, npy.pieces, { overwrite })
  return { path, bytes: npy.bytes, dtype: npy.dtype }
}

/** The matrix as a .npy file's bytes, in pieces straight from its memory, and their total. */
export function npyPieces(matrix: Float64Array | Float32Array, m: number): { pieces: Generator<Uint8Array>; bytes: number; dtype: '<f8' | '<f4' } {
  const dtype = matrix instanceof Float64Array ? '<f8' : '<f4'
  const header = npyHeader(dtype, [m, m])
  const data = new Uint8Array(matrix.buffer, matrix.byteOffset, m * m * matrix.BYTES_PER_ELEMENT)
  const pieces = (function* () {
    yield header
    for (let at = 0; at < data.length; at += PIECE_BYTES) yield data.subarray(at, at + PIECE_BYTES)
  })()
  return { pieces, bytes: header.length + data.length, dtype }
}

/** A cell's text in the CSV: empty where r is undefined, f32 values as their shortest decimal. */
export function matrixCellText(f32: boolean): (r: number) => string {
  return (r) => (r !== r ? '' : f32 ? shortestF32(r) : String(r))
}

export async function writeMatrixCsv(path: string, matrix: Float64Array | Float32Array, m: number, names: readonly string[], overwrite = false): Promise<WrittenMatrix> {
  const f32 = matrix instanceof Float32Array
  const text = matrixCellText(f32)
  const counted = { bytes: 0 }
  const pieces = csvMatrixPieces(
    {
      rows: m,
      cols: m,
      corner: 'r',
      rowName: (i) => names[i],
      colName: (j) => names[j],
      cell: (i, j) => text(matrix[i * m + j]),
    },
    counted,
  )
  await writeFileAtomic(path, pieces, { overwrite })
  return { path, bytes: counted.bytes, dtype: f32 ? '<f4' : '<f8' }
}

/** The shortest decimal that reads back as the same f32 (0.1, not the 0.10000000149011612 of its widening). */
function shortestF32(v: number): string {
  for (let digits = 6; digits < 9; digits++) {
    const s = Number(v.toPrecision(digits))
    if (Math.fround(s) === v) return String(s)
  }
  return String(Number(v.toPrecision(9)))
}
