// Reads a data set in the format its extension names and checks it before any computing: at least
// two series of at least two samples, and a matrix this machine can hold.
import { stat } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import type { InputFormat, Layout, Precision } from '../../../shared/workloads/correlation/types'
import { nameList } from '../../io/quote'
import { checkMatrixFits } from './limits'
import { chooseSeriesColumns, readCsvColumns, readCsvRows } from './read-csv'
import { readNpy, readNpyShape } from './read-npy'
import { arrayFormatOf } from '../../io/hdf5/array-file'
import { readDatasetSeries } from './read-dataset'
import { chooseTableColumns, readTableColumns } from './read-table'
import { tableFormat } from '../../io/table-loader'
import type { SeriesMatrix } from './series-matrix'

export interface LoadedSeries {
  series: SeriesMatrix
  format: InputFormat
  bytes: number
  load_ms: number
  /** Columns that hold no numbers (text, timestamps) left out of a table read in the columns layout without --columns. */
  leftOut: string[]
}

export interface LoadSeriesOptions {
  layout: Layout
  precision: Precision
  /** Columns layout of a CSV: the columns to read (default: those a sample of rows shows numeric). */
  columns?: string[]
  /** An HDF5 or NetCDF file's 2-D dataset (variable), `/group/name`. */
  dataset?: string
  /** An HDF5 or NetCDF file's dataset (variable) of strings naming the series. */
  names?: string
  signal?: AbortSignal
  progress?: (fraction: number) => void
  /** Hears the shape (and format) as soon as a header tells it, before the values are read; n is absent where only the series are counted (a CSV's columns). */
  shape?: (s: { m: number; n?: number; format: InputFormat }) => void
}

/** A .npy array by its name; a Parquet or Arrow table by its content; else CSV text. */
export async function formatOf(path: string): Promise<InputFormat> {
  if (path.toLowerCase().endsWith('.npy')) return 'npy'
  return tableFormat(path)
}

/** `shown` names the file in messages; `path` is where it is read. */
export async function loadSeries(shown: string, path: string, opts: LoadSeriesOptions): Promise<LoadedSeries> {
  const t0 = performance.now()
  // HDF5 and NetCDF are known by their content, whatever their name.
  const arrays = await arrayFormatOf(shown, path)
  if (arrays) return loadDatasetSeries(shown, path, arrays, opts, t0)
  if (opts.dataset) throw new ApiError('invalid-argument', `${shown}: --dataset names a dataset of an HDF5 or NetCDF file; this file is neither`)
  if (opts.names) throw new ApiError('invalid-argument', `${shown}: --names names a dataset of strings in an HDF5 or NetCDF file; this file is neither (a table's series are named by its columns)`)
  const format = await formatOf(path)
  const table = format === 'parquet' || format === 'arrow'
  // What the header tells is checked before the data is read.
  if (format === 'npy') {
    const { m, n } = await readNpyShape(path, opts.layout)
    checkShape(shown, m, n, opts)
    opts.shape?.({ m, n, format })
  }
  if (table && opts.layout !== 'columns') throw new ApiError('invalid-argument', `${shown}: a ${format === 'parquet' ? 'Parquet' : 'Arrow'} table holds a series per column; the rows layout reads CSV text only`)
  if (opts.columns && (format === 'npy' || opts.layout !== 'columns'))
    throw new ApiError('invalid-argument', `${shown}: --columns chooses columns of a CSV in the columns layout; this input is ${format === 'npy' ? 'a .npy file' : 'in the rows layout'}`)
  let series: SeriesMatrix
  let leftOut: string[] = []
  try {
    if (table || (format === 'csv' && opts.layout === 'columns')) {
      const chosen = table ? await chooseTableColumns(path, opts.columns, opts.signal) : await chooseSeriesColumns(path, opts.columns)
      leftOut = chosen.leftOut
      // The header gives the matrix's side: a file of 100 000 columns is refused before it is read.
      checkShape(shown, chosen.names.length, 2, opts, leftOut)
      opts.shape?.({ m: chosen.names.length, format })
      series = table ? await readTableColumns(path, { ...opts, columns: chosen.names }) : await readCsvColumns(path, { ...opts, columns: chosen.names })
    } else series = format === 'npy' ? await readNpy(path, opts) : await readCsvRows(path, opts)
  } catch (e) {
    // Messages name the path read; the user gave `shown`.
    const err = ApiError.from(e)
    throw shown === path ? err : new ApiError(err.code, err.message.split(path).join(shown))
  }
  checkShape(shown, series.m, series.n, opts)
  return { series, format, bytes: (await stat(path)).size, load_ms: performance.now() - t0, leftOut }
}

async function loadDatasetSeries(shown: string, path: string, format: 'hdf5' | 'netcdf', opts: LoadSeriesOptions, t0: number): Promise<LoadedSeries> {
  if (opts.columns) throw new ApiError('invalid-argument', `${shown}: --columns chooses columns of a CSV; name the dataset of this ${format === 'hdf5' ? 'HDF5' : 'NetCDF'} file with --dataset`)
  const series = await readDatasetSeries(shown, path, format, {
    ...opts,
    checkShape: (where, m, n) => {
      checkShape(where, m, n, opts)
      opts.shape?.({ m, n, format })
    },
  })
  return { series, format, bytes: (await stat(path)).size, load_ms: performance.now() - t0, leftOut: [] }
}

function checkShape(shown: string, m: number, n: number, opts: LoadSeriesOptions, leftOut: string[] = []): void {
  const what = opts.layout === 'columns' ? 'columns' : 'rows'
  const text = leftOut.length ? `; columns of text left out: ${nameList(leftOut)}` : ''
  if (m < 2) throw new ApiError('invalid-input', `${shown}: ${m} series; correlation needs at least 2 (${opts.layout} layout: a series per ${what.slice(0, -1)}${text})`)
  if (n < 2) throw new ApiError('invalid-input', `${shown}: series of ${n} sample${n === 1 ? '' : 's'}; correlation needs at least 2`)
  checkMatrixFits(shown, m, n, opts.precision)
}
