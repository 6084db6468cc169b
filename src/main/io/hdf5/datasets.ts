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
}

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
