// Statistics' columns from an HDF5 or NetCDF file: each column a 1-D dataset (variable), named with
// --columns (`--columns /acc/x,/acc/y`). Read a piece at a time into shared columns like the CSV
// loader's, after checking every dataset's length against the memory.
import { checkColumnRows } from '../../io/column-sizes'
import { ApiError } from '../../../shared/errors'
import { type ArrayFile, type ArrayFormat, checkElements, findDataset, openArrayFile, readPieces } from '../../io/hdf5/array-file'
import { datasetKey, listingText } from '../../io/hdf5/datasets'
import type { CsvTable } from '../../io/csv-loader'

export interface ReadColumnsOptions {
  signal?: AbortSignal
  progress?: (fraction: number) => void
}

/** The datasets `columns` name, read as a table of columns named by their paths. */
export async function readDatasetColumns(shown: string, path: string, format: ArrayFormat, columns: string[] | undefined, opts: ReadColumnsOptions): Promise<CsvTable> {
  const t0 = performance.now()
  const file = await openArrayFile(shown, path, format, opts.signal)
  try {
    return { ...(await readColumns(file, columns, opts)), path, bytes: file.bytes, load_ms: performance.now() - t0 }
  } finally {
    await file.close()
  }
}

export async function readColumns(file: ArrayFile, columns: string[] | undefined, opts: ReadColumnsOptions): Promise<Omit<CsvTable, 'path' | 'bytes' | 'load_ms'>> {
  if (!columns?.length) {
    const oneD = file.datasets.filter((d) => d.shape.length === 1 && !d.unreadable)
    throw new ApiError('invalid-argument', `${file.shown}: ${file.format === 'netcdf' ? 'a NetCDF' : 'an HDF5'} file; name its 1-D datasets with --columns (e.g. --columns ${oneD.slice(0, 3).map((d) => d.path).join(',') || '/x'}). Its datasets: ${listingText(file.datasets)}`)
  }
  const chosen = [...new Set(columns.map(datasetKey))].map((name) => findDataset(file, name, [1], '--columns'))
  // Every dataset is checked before any is read, together: their values must fit side by side.
  let memory = process.availableMemory()
  for (const d of chosen) {
    checkElements(file, d, memory)
    checkColumnRows(`${file.shown}: ${d.path}`, d.shape[0]) // shared with the backends' threads
    memory -= d.shape[0] * 8
  }
  const total = chosen.reduce((s, d) => s + d.shape[0], 0)
  let done = 0
  const out: CsvTable['columns'] = {}
  for (const d of chosen) {
    // Shared, as the CSV loader's columns are: backends hand them to threads without copying.
    // Cells that hold no value (NetCDF's fill values, outside the valid range) are missing values,
    // counted and left out as a CSV's empty cells are.
    const values = new Float64Array(new SharedArrayBuffer(d.shape[0] * 8))
    let filled = 0
    let missing = 0
    const progress = (f: number) => opts.progress?.((done + f * d.shape[0]) / Math.max(total, 1))
    await readPieces(file, d, { signal: opts.signal, progress, missing: 'skip' }, (_first, _count, piece, skipped) => {
      values.set(piece, filled)
      filled += piece.length
      missing += skipped
    })
    done += d.shape[0]
    out[d.path] = { values: values.subarray(0, filled), missing }
  }
  const rows = Math.max(0, ...chosen.map((d) => d.shape[0]))
  if (rows === 0) throw new ApiError('invalid-input', `${file.shown}: the datasets ${chosen.map((d) => d.path).join(', ')} are empty`)
  return { rows, header: chosen.map((d) => d.path), columns: out, threads: 1, rangeBytes: 0 }
}
