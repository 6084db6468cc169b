// The sizes the shared loaders can hold, as pure arithmetic that tests check at the boundaries
// without the memory. Measured in Node 20 (V8 11.3): a SharedArrayBuffer, growable or not, of 2^32
// bytes or more cannot be posted to another thread — a view of it fails to deserialize there
// ("Unable to deserialize cloned data") and a view of all 2^32 bytes arrives with length 0, so the
// thread's writes land nowhere and the column reads as zeros. Columns are shared with the loader's
// and the backends' threads, so a column's buffer stays below 2^32 bytes.
import { ApiError } from '../../shared/errors'

/** Bytes of the largest SharedArrayBuffer another thread can receive. */
export const MAX_SHARED_BYTES = 2 ** 32 - 1

/** Values an f64 column holds at most: 2^29 − 1 (its buffer then takes 2^32 − 8 bytes). */
export const MAX_COLUMN_VALUES = Math.floor(MAX_SHARED_BYTES / 8)

/** Elements a typed array holds at most in this Node. */
export const MAX_ARRAY_ELEMENTS = 2 ** 32

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(bytes < 1e10 ? 2 : 0)} GB`

/** Refuses a table of `rows` rows whose columns could not be shared with threads. */
export function checkColumnRows(path: string, rows: number): void {
  if (!(rows <= MAX_COLUMN_VALUES))
    throw new ApiError('invalid-input', `${path}: ${rows} rows (${rows * 8} bytes a column as f64); a column holds at most ${MAX_COLUMN_VALUES} values (2^29 − 1: its buffer must stay below 2^32 bytes to be shared with threads)`)
}

/**
 * Refuses `columns` columns of `rows` f64 values that the memory available now cannot hold, before
 * anything is allocated: a few hundred bytes of metadata can announce billions of rows.
 */
export function checkTableMemory(path: string, rows: number, columns: number, memory = process.availableMemory()): void {
  const need = rows * columns * 8
  if (need > memory)
    throw new ApiError('invalid-input', `${path}: ${columns} column${columns === 1 ? '' : 's'} of ${rows} rows need about ${gb(need)} of memory as f64; ${gb(memory)} are available`)
}
