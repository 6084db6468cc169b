// The run's full f64 matrix (the reference every backend was checked against), kept on disk beside
// its history entry by the dashboard's backends (JobContext.keep), and the files made from it on
// request: the matrix as NumPy's .npy (the kept file itself) and as CSV (series names on both
// sides), both read a block at a time as they are sent. At M = 16 384 the .npy is 2 GiB and its
// CSV about 5 GB: neither is ever held whole. A kept file is believed only when its size and
// header are those of the run's M × M matrix and its names are the run's M names.
import { ApiError } from '../../../shared/errors'
import type { CorrelationResult } from '../../../shared/workloads/correlation/types'
import type { JobContext, KeptFileOpener, MadeFile } from '../../engine'
import { csvMatrixFromFile } from '../../io/csv-matrix'
import { readPieces } from '../../io/file-pieces'
import { matrixCellText, npyPieces } from './write-matrix-file'
import { npyHeader } from './npy'

export const KEPT_MATRIX = 'matrix.npy'
export const KEPT_NAMES = 'matrix-names.json'
/** Bytes a series name may take in the kept names, on average (a bound on reading them back). */
const NAME_BYTES = 4096

/** Keeps the matrix and its series' names; nothing when the bound on kept files leaves no room. */
export async function keepMatrix(keep: NonNullable<JobContext['keep']>, matrix: Float64Array, m: number, names: readonly string[]): Promise<void> {
  const text = JSON.stringify(names)
  if ((await keep(KEPT_NAMES, Buffer.byteLength(text), text)) === null) return
  const npy = npyPieces(matrix, m)
  await keep(KEPT_MATRIX, npy.bytes, npy.pieces)
}

/** `matrix.npy` or `matrix.csv` of a kept run, checked now and read as it is sent. */
export async function keptMatrixFile(results: CorrelationResult, name: string, kept?: KeptFileOpener, signal?: AbortSignal): Promise<MadeFile> {
  if (!kept) throw new ApiError('invalid-argument', `${name} is made from the matrix a dashboard's run keeps: ask for it by the run's id`)
  const m = results?.input?.series
  if (!Number.isSafeInteger(m) || m < 1) throw new ApiError('invalid-argument', 'results are not a correlation run\'s')
  // Checked before the download starts, so a missing or damaged matrix is an answer, not a broken file.
  const first = await openMatrix(kept, m)
  await first.file.close()
  if (name === 'matrix.npy') return { mime: 'application/octet-stream', size: first.size, pieces: npyFile(kept, m, signal) }
  const names = await readNames(kept, m)
  return { mime: 'text/csv', pieces: csvFile(kept, m, names, signal) }
}

async function* npyFile(kept: KeptFileOpener, m: number, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { file, size } = await openMatrix(kept, m)
  try {
    yield* readPieces(file, 0, size, 'the kept matrix', signal)
  } finally {
    await file.close()
  }
}

async function* csvFile(kept: KeptFileOpener, m: number, names: string[], signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { file, dataOffset } = await openMatrix(kept, m)
  try {
    yield* csvMatrixFromFile(
      { rows: m, cols: m, corner: 'r', rowName: (i) => names[i], colName: (j) => names[j] },
      { file, dataOffset, bytesPerCell: 8, cells: (b, count) => new Float64Array(b, 0, count), text: matrixCellText(false) },
      signal,
    )
  } finally {
    await file.close()
  }
}

/** The kept matrix, opened, when its size and header are those of an M × M f64 matrix. */
async function openMatrix(kept: KeptFileOpener, m: number) {
  const header = npyHeader('<f8', [m, m])
  const expected = header.length + m * m * 8
  const { file, size } = await kept(KEPT_MATRIX)
  try {
    if (size !== expected) throw new ApiError('io', `the kept matrix holds ${size} bytes, not the ${expected} of this run's ${m} × ${m} matrix`)
    const head = new Uint8Array(header.length)
    await file.read(head, 0, head.length, 0)
    if (!head.every((b, i) => b === header[i])) throw new ApiError('io', `the kept matrix's header is not that of this run's ${m} × ${m} f64 matrix`)
    return { file, size, dataOffset: header.length }
  } catch (e) {
    await file.close()
    throw e
  }
}

async function readNames(kept: KeptFileOpener, m: number): Promise<string[]> {
  const { file, size } = await kept(KEPT_NAMES)
  try {
    if (size > m * NAME_BYTES) throw new ApiError('io', `the kept series names take ${size} bytes, more than ${m} names may`)
    const names = JSON.parse((await file.readFile()).toString('utf8')) as unknown
    if (!Array.isArray(names) || names.length !== m || names.some((n) => typeof n !== 'string'))
      throw new ApiError('io', `the kept series names are not this run's ${m} names`)
    return names as string[]
  } catch (e) {
    throw e instanceof SyntaxError ? new ApiError('io', 'the kept series names are not JSON') : e
  } finally {
    await file.close()
  }
}
