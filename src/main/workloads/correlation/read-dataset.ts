// Series from a 2-D dataset of an HDF5 or NetCDF file (--dataset /group/name): shape N × M with a
// series per column (the columns layout), M × N with a series per row. Read a piece of rows at a
// time into the series matrix, so memory stays near the matrix itself; the shape is checked
// against the memory before anything is allocated. The series are named from the file (series-names.ts).
import type { Layout, Precision } from '../../../shared/workloads/correlation/types'
import { type ArrayFile, type ArrayFormat, checkElements, findDataset, openArrayFile, readPieces } from '../../io/hdf5/array-file'
import { type SeriesMatrix, seriesMatrix } from './series-matrix'
import { seriesNames } from './series-names'

export interface ReadDatasetOptions {
  layout: Layout
  precision: Precision
  dataset?: string
  /** The dataset of strings naming the series (default: the series dimension's coordinate variable of strings). */
  names?: string
  signal?: AbortSignal
  progress?: (fraction: number) => void
  /** Checks the series count and length (and the matrix they make) before the values are read. */
  checkShape: (where: string, m: number, n: number) => void
}

export async function readDatasetSeries(shown: string, path: string, format: ArrayFormat, opts: ReadDatasetOptions): Promise<SeriesMatrix> {
  const file = await openArrayFile(shown, path, format, opts.signal)
  try {
    return await readSeries(file, opts)
  } finally {
    await file.close()
  }
}

export async function readSeries(file: ArrayFile, opts: ReadDatasetOptions): Promise<SeriesMatrix> {
  const d = findDataset(file, opts.dataset, [2], '--dataset')
  const [rows, cols] = d.shape
  const [m, n] = opts.layout === 'rows' ? [rows, cols] : [cols, rows]
  opts.checkShape(`${file.shown}: ${file.format === 'netcdf' ? 'variable' : 'dataset'} ${d.path}`, m, n)
  checkElements(file, d)
  // The names first: a list that cannot name the series is refused before the values are read.
  const names = await seriesNames(file, d, m, opts)
  const values = new Float64Array(m * n)
  await readPieces(file, d, opts, (first, count, piece) => {
    if (opts.layout === 'rows') values.set(piece, first * n)
    // Columns: file row k holds sample k of every series.
    else for (let r = 0; r < count; r++) for (let s = 0, at = r * m; s < m; s++, at++) values[s * n + first + r] = piece[at]
  })
  return seriesMatrix(names, values, m, n)
}
