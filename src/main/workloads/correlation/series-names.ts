// The names of the series of an HDF5 or NetCDF dataset, as xarray labels them: a dataset of
// strings the user names (--names /lab/names), else the coordinate variable of the series'
// dimension when it holds strings, else s0, s1, … Names are labels shown in tables, charts and
// CSV files: a list of the wrong length, with a name repeated, empty, over MAX_NAME_CHARS or
// holding control characters is refused, naming the file and the dataset.
import { ApiError } from '../../../shared/errors'
import type { Layout } from '../../../shared/workloads/correlation/types'
import type { ArrayFile } from '../../io/hdf5/array-file'
import { type DatasetInfo, datasetKey, listingText } from '../../io/hdf5/datasets'
import { quoteText } from '../../io/quote'
import { indexNames } from './series-matrix'

/** Characters a name has at most. */
export const MAX_NAME_CHARS = 256

export interface NamesOptions {
  layout: Layout
  /** The dataset (variable) of strings naming the series. */
  names?: string
  signal?: AbortSignal
}

/** The names of the m series of dataset `d` (2-D, `layout` saying which dimension is the series'). */
export async function seriesNames(file: ArrayFile, d: DatasetInfo, m: number, opts: NamesOptions): Promise<string[]> {
  const kind = file.format === 'netcdf' ? 'variable' : 'dataset'
  let source: DatasetInfo
  let how: string
  if (opts.names !== undefined) {
    const found = file.datasets.find((x) => x.path === datasetKey(opts.names!))
    if (!found) throw new ApiError('invalid-argument', `${file.shown}: no ${kind} ${datasetKey(opts.names)} to name the series; name one with --names. Its ${kind}s: ${listingText(file.datasets)}`)
    source = found
    how = 'named by --names'
  } else {
    const dim = opts.layout === 'rows' ? 0 : 1
    const path = d.coordinates?.[dim]
    const coordinate = path ? file.datasets.find((x) => x.path === path) : undefined
    // A coordinate of numbers (station numbers, depths) leaves the names s0, s1, …
    if (!coordinate || !/^(string|char)$/.test(coordinate.dtype)) return indexNames(m)
    source = coordinate
    how = `the coordinate ${kind} of the series' dimension; name another with --names`
  }
  const where = `${file.shown}: ${kind} ${source.path} (${how})`
  if (source.path === d.path) throw new ApiError('invalid-argument', `${where} is the ${kind} of the series themselves`)
  const names = await file.readStrings(source, opts.signal).catch((e: unknown) => {
    const err = ApiError.from(e)
    throw new ApiError(err.code, `${err.message} (${how})`)
  })
  checkNames(where, names, m)
  return names
}

/** Refuses a list of names that cannot label m series, naming `where` and the element at fault. */
export function checkNames(where: string, names: readonly unknown[], m: number): asserts names is string[] {
  if (names.length !== m) throw new ApiError('invalid-input', `${where}: ${names.length} names for ${m} series`)
  const seen = new Map<string, number>()
  names.forEach((name, i) => {
    if (typeof name !== 'string') throw new ApiError('invalid-input', `${where}: element [${i}] is not a string`)
    if (name.trim() === '') throw new ApiError('invalid-input', `${where}: element [${i}] is an empty name`)
    if (name.length > MAX_NAME_CHARS) throw new ApiError('invalid-input', `${where}: element [${i}] is a name of ${name.length} characters; at most ${MAX_NAME_CHARS}`)
    if (/[\u0000-\u001f\u007f]/.test(name)) throw new ApiError('invalid-input', `${where}: element [${i}] ${quoteText(name)} holds a control character`)
    const first = seen.get(name)
    if (first !== undefined) throw new ApiError('invalid-input', `${where}: elements [${first}] and [${i}] are both ${quoteText(name)}; a name picks one series`)
    seen.set(name, i)
  })
}
