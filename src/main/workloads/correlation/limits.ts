// Whether a data set's matrix can be held and written, checked before any work: an M × M matrix
// grows fast (2 GiB in f64 at M = 16 384), and finding out after an hour of computing helps no one.
import { statfs } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ApiError } from '../../../shared/errors'
import type { Precision } from '../../../shared/workloads/correlation/types'

/** Elements a typed array may hold in this Node. */
const MAX_ELEMENTS = 2 ** 32 - 1

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(bytes < 1e10 ? 2 : 0)} GB`

export function matrixBytes(m: number, precision: Precision): number {
  return m * m * (precision === 'f64' ? 8 : 4)
}

/**
 * Refuses m series of n samples whose matrix (the reference and one backend's at a time, beside
 * the series and their centred copy; a written matrix file streams from them) would not fit the
 * memory available now (not the machine's total, much of which others may hold). `shown` names the file.
 */
export function checkMatrixFits(shown: string, m: number, n: number, precision: Precision, memory = process.availableMemory()): void {
  if (m * m > MAX_ELEMENTS)
    throw new ApiError('invalid-input', `${shown}: ${m} series make a ${m} × ${m} matrix of ${m * m} values; at most ${MAX_ELEMENTS} fit one array`)
  const need = 2 * matrixBytes(m, precision) + 3 * m * n * 8
  if (need > memory)
    throw new ApiError(
      'invalid-input',
      `${shown}: ${m} series of ${n} samples need about ${gb(need)} of memory (the ${m} × ${m} ${precision} matrix takes ${gb(matrixBytes(m, precision))}); ${gb(memory)} are available`,
    )
}

/** Refuses a --matrix file that the disk under it cannot take. */
export async function checkMatrixWritable(path: string, m: number, precision: Precision): Promise<void> {
  const csv = /\.csv$/i.test(path)
  if (!csv && !/\.npy$/i.test(path)) throw new ApiError('invalid-argument', `matrix file ${path} must end in .npy or .csv`)
  let free: number
  try {
    const s = await statfs(dirname(path))
    free = s.bavail * s.bsize
  } catch (e) {
    throw new ApiError('io', `cannot write ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? `directory ${dirname(path)} does not exist` : (e as Error).message}`)
  }
  // CSV: about 20 characters a cell (r to 17 digits, or 9 in f32, a sign and a comma), names aside.
  const need = csv ? m * m * (precision === 'f64' ? 21 : 13) : matrixBytes(m, precision) + 4096
  if (need > free) throw new ApiError('invalid-input', `cannot write ${path}: the ${m} × ${m} ${precision} matrix needs ${csv ? 'about ' : ''}${gb(need)}; ${gb(free)} are free there`)
}
