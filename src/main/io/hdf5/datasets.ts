// What an HDF5 or NetCDF file holds, as Paralab lists it: each dataset (variable) with its shape
// and element type, and whether its elements are numbers Paralab reads.
import type { DatasetEntry } from '../../../shared/api'

/** Element types read as numbers (converted to f64; 64-bit integers beyond 2^53 round, as a CSV's digits would). */
export const NUMERIC_DTYPES = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64'] as const
export type NumericDtype = (typeof NUMERIC_DTYPES)[number]

/** `path`: `/group/name` (HDF5) or `/name` (a NetCDF variable); `shape` [] for a scalar. */
export interface DatasetInfo extends DatasetEntry {
  /** HDF5, chunked: the chunks' extent along the first dimension (pieces aligned to it decompress each chunk once). */
  chunkRows?: number
  /** Cells that hold no value (NetCDF's fill and valid range). */
  missing?: MissingRule
  /** HDF5: why the file's bytes cannot hold the values it announces (they were never written). */
  unstored?: string
  /**
   * Each dimension's coordinate variable, as xarray finds it (null where none): in a NetCDF file
   * the variable named as the dimension over it; in HDF5 (NetCDF-4 included) the dimension scale
   * attached to it.
   */
  coordinates?: (string | null)[]
}

/** Strings a list of names holds at most, and bytes a name: a name is a label, not a document. */
export const MAX_STRINGS = 2 ** 24
export const MAX_STRING_BYTES = 256

export function isNumeric(dtype: string): dtype is NumericDtype {
  return (NUMERIC_DTYPES as readonly string[]).includes(dtype)
}

export function bytesOf(dtype: NumericDtype): number {
  return dtype.endsWith('8') && !dtype.endsWith('64') ? 1 : dtype.endsWith('16') ? 2 : dtype.endsWith('32') ? 4 : 8
}

/** `/a` and `a` name the same dataset. */
export function datasetKey(name: string): string {
  return '/' + name.replace(/^\/+/, '')
}

export function shapeText(shape: readonly number[]): string {
  return shape.length === 0 ? 'scalar' : shape.join(' × ')
}

/** Datasets listed in a message at most. */
const LISTED = 50

/** `/a float64 100 × 3; /s string 2 (not numeric)`: one line, so a message carries it whole. */
export function listingText(datasets: readonly DatasetInfo[]): string {
  if (datasets.length === 0) return 'it holds no datasets'
  const shown = datasets.slice(0, LISTED).map((d) => `${d.path} ${d.dtype} ${shapeText(d.shape)}${d.unreadable ? ` (${d.unreadable})` : ''}`)
  return shown.join('; ') + (datasets.length > LISTED ? `; … (${datasets.length - LISTED} more)` : '')
}

/**
 * NetCDF's cells that hold no value, as netCDF4-python masks them: those equal to `_FillValue` (or,
 * without one, to the type's default fill), to `missing_value`, or outside `valid_min`…`valid_max`
 * (`valid_range`). `unsigned`: `_Unsigned = "true"` on an integer variable, whose bits are then
 * read as unsigned. Applied to HDF5 datasets of NetCDF-4 files and to any carrying `_FillValue`.
 */
export interface MissingRule {
  values: number[]
  /** A NaN fill value: NaN cells are missing. */
  nan?: boolean
  min?: number
  max?: number
  unsigned?: boolean
}

/** netcdf-c's default fill values (netcdf.h), by element type. */
const DEFAULT_FILL: Partial<Record<string, number>> = {
  int8: -127,
  uint8: 255,
  int16: -32767,
  uint16: 65535,
  int32: -2147483647,
  uint32: 4294967295,
  int64: -9223372036854775806,
  uint64: 18446744073709551614,
  float32: Math.fround(9.969209968386869e36),
  float64: 9.969209968386869e36,
}

/**
 * The rule of a variable from its attributes (`attr(name)`: its numbers, or undefined), or a reason
 * it is not read: packed values (`scale_factor`, `add_offset`) are not unpacked here.
 * `defaultFill`: which types' default fill counts when no `_FillValue` is given: every type's in
 * NetCDF-4 files, all but bytes' in classic ones (whose fill mode the file does not record, and
 * netCDF4 assumes none for bytes), none for other HDF5 files.
 */
export function netcdfRule(dtype: string, attr: (name: string) => number[] | undefined, defaultFill: 'all' | 'not bytes' | 'none'): MissingRule | string {
  if (attr('scale_factor') || attr('add_offset')) return 'packed values (scale_factor/add_offset), which are not unpacked here'
  // `_Unsigned = "false"` is signed to netcdf-c and unsigned to netCDF4-python: refused, not guessed.
  if (attr('_Unsigned')?.[0] === 0) return '_Unsigned is not "true" (netcdf-c reads such a variable as signed, netCDF4-python as unsigned)'
  const unsigned = /^int(8|16|32|64)$/.test(dtype) && attr('_Unsigned')?.[0] === 1
  const type = unsigned ? 'u' + dtype : dtype
  const fill = attr('_FillValue')
  const rule: MissingRule = { values: [], ...(unsigned && { unsigned }) }
  const byDefault = defaultFill === 'all' || (defaultFill === 'not bytes' && !/int8$/.test(type))
  const fills = fill ?? (byDefault ? [DEFAULT_FILL[type]!] : [])
  for (const v of [...fills.slice(0, 1), ...(attr('missing_value') ?? [])]) {
    if (Number.isNaN(v)) rule.nan = true
    else rule.values.push(v)
  }
  const range = attr('valid_range')
  const min = range?.length === 2 ? range[0] : attr('valid_min')?.[0]
  const max = range?.length === 2 ? range[1] : attr('valid_max')?.[0]
  if (min !== undefined && !Number.isNaN(min)) rule.min = min
  if (max !== undefined && !Number.isNaN(max)) rule.max = max
  return rule.values.length || rule.nan || rule.min !== undefined || rule.max !== undefined || unsigned ? rule : { values: [] }
}

/** Reads `_Unsigned` integers as unsigned (in place) and marks the missing cells; undefined when none is. */
export function applyRule(values: Float64Array, dtype: string, rule: MissingRule | undefined): Uint8Array | undefined {
  if (!rule) return undefined
  if (rule.unsigned) {
    const span = 2 ** (8 * bytesOf(dtype as NumericDtype))
    for (let i = 0; i < values.length; i++) if (values[i] < 0) values[i] += span
  }
  if (!rule.values.length && !rule.nan && rule.min === undefined && rule.max === undefined) return undefined
  let mask: Uint8Array | undefined
  const fills = new Set(rule.values)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (fills.has(v) || (rule.nan && Number.isNaN(v)) || (rule.min !== undefined && v < rule.min) || (rule.max !== undefined && v > rule.max)) (mask ??= new Uint8Array(values.length))[i] = 1
  }
  return mask
}

/** Deflate expands at most about 1032 : 1; a dataset's filters never make more bytes than that from the file's. */
export const MAX_EXPANSION = 1032
/** A chunk is decompressed whole; one larger than this is refused rather than inflated. */
export const MAX_CHUNK_BYTES = 256 * 2 ** 20

/**
 * What the file's bytes can hold of a dataset: its elements' bytes are at most the file's (stored
 * as they are), or MAX_EXPANSION times them (through filters). More is announced than was ever
 * written (the rest would be fill values), and is refused before anything is allocated for it.
 */
export function storageBound(elements: number, itemBytes: number, fileBytes: number, filtered: boolean): string | undefined {
  const announced = elements * itemBytes
  const most = fileBytes * (filtered ? MAX_EXPANSION : 1)
  if (announced <= most) return undefined
  return `announces ${elements.toExponential(3)} elements (${sizeText(announced)}) but the file has ${sizeText(fileBytes)}, which hold at most ${sizeText(most)} of them${filtered ? ' compressed' : ''}: most of it was never written and holds no values`
}

export function sizeText(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} KB` : `${bytes} bytes`
}
