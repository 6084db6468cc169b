// HDF5 (NetCDF-4 included: it is HDF5) and classic NetCDF files as one thing: a list of datasets
// and their rows, read a bounded piece at a time. What a file is comes from its content
// (sniff.ts). HDF5 is read on a worker thread (hdf5-read.ts); classic NetCDF with asynchronous
// reads here. Errors name the file as the user gave it and the dataset.
import type { FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { ioError, openForReading } from '../open-for-reading'
import { sniffFile } from '../sniff'
import { WorkerPool } from '../../workers/pool'
import { type Beyond, type DatasetInfo, applyRule, datasetKey, isNumeric, listingText, shapeText } from './datasets'
import { checkInFile, type NetcdfHeader, type NetcdfVariable, readNetcdfHeader, readNetcdfRows, readNetcdfStrings } from './netcdf-classic'
import { hashAlongside } from '../input-digest'

export type ArrayFormat = 'hdf5' | 'netcdf'

/** Bytes of f64 values a piece holds at most (a piece is whole rows, at least one, and whole chunks):
 * small enough that placing it (on the main thread) takes milliseconds. */
export const PIECE_BYTES = 2 * 1024 * 1024

export interface ArrayFile {
  format: ArrayFormat
  shown: string
  bytes: number
  datasets: DatasetInfo[]
  /** Rows [first, first + count) of a dataset, each row every element of the other dimensions, and its 64-bit integers beyond ±2^53; an abort of `signal` ends it. */
  readRows(d: DatasetInfo, first: number, count: number, signal?: AbortSignal): Promise<{ values: Float64Array; beyond: Beyond }>
  /** Refuses a dataset whose data the file cannot hold where its header places it. */
  checkData(d: DatasetInfo): void
  /** A dataset of strings (HDF5: 1-D strings or 2-D one-byte strings; NetCDF: 2-D characters), a string a row. */
  readStrings(d: DatasetInfo, signal?: AbortSignal): Promise<string[]>
  close(): Promise<void>
}

/** Names of HDF5 and NetCDF files: one whose content is neither is refused rather than read as text. */
const ARRAY_NAME = /\.(h5|hdf5|he5|hdf|nc|nc4|cdf)$/i

/**
 * The array format of a file's content, or undefined for any other file (whose readers say what is
 * wrong with it). A file named like one whose content is not is refused, naming `shown`.
 */
export async function arrayFormatOf(shown: string, path: string): Promise<ArrayFormat | undefined> {
  const sniffed = await sniffFile(path).catch(() => undefined)
  if (sniffed?.kind === 'hdf5' || sniffed?.kind === 'netcdf') return sniffed.kind
  if (sniffed && ARRAY_NAME.test(shown))
    throw new ApiError('invalid-input', `${shown}: named like an HDF5 or NetCDF file, but its content is ${sniffed.kind === 'empty' ? 'empty' : `not (no HDF5 signature and no CDF magic; it looks like ${sniffed.kind})`}`)
  return undefined
}

/** Opens `path` (named `shown` in messages) and lists its datasets; close it after use. */
export async function openArrayFile(shown: string, path: string, format: ArrayFormat, signal?: AbortSignal): Promise<ArrayFile> {
  throwIfAborted(signal)
  const named = (e: unknown) => {
    const err = ApiError.from(e)
    return shown === path ? err : new ApiError(err.code, err.message.split(path).join(shown))
  }
  const file = await openForReading(path).catch((e) => Promise.reject(named(e)))
  // Read by its chunks: a job's sha256 of it is taken meanwhile (input-digest.ts).
  hashAlongside(path, signal)
  let size: number
  try {
    size = (await file.stat()).size
  } catch (e) {
    await file.close()
    throw ioError(shown, e)
  }
  if (format === 'netcdf') {
    try {
      const header = await readNetcdfHeader(shown, file, size)
      return netcdfFile(shown, file, size, header)
    } catch (e) {
      await file.close()
      throw e
    }
  }
  await file.close()
  // One thread: h5wasm reads synchronously, and this keeps the main thread answering.
  const pool = new WorkerPool('hdf5-worker', 1)
  // Listing runs inside the library too: a cancel ends the thread.
  const stop = () => void pool.terminate()
  signal?.addEventListener('abort', stop, { once: true })
  if (signal?.aborted) stop()
  try {
    const datasets = await pool.run<DatasetInfo[]>('listHdf5', { path })
    signal?.removeEventListener('abort', stop)
    return {
      format,
      shown,
      bytes: size,
      datasets,
      // The library checks its own addresses against the file's end (a truncated file fails to open).
      checkData: () => {},
      // A read inside the library cannot be interrupted: a cancel ends the thread, and with it the file.
      readRows: async (d, first, count, signal) => {
        throwIfAborted(signal)
        const stop = () => void pool.terminate()
        signal?.addEventListener('abort', stop, { once: true })
        try {
          return await pool.run<{ values: Float64Array; beyond: Beyond }>('readHdf5Rows', { path, dataset: d.path, first, count, rows: d.shape[0], pad: d.pad })
        } catch (e) {
          throwIfAborted(signal)
          throw named(e)
        } finally {
          signal?.removeEventListener('abort', stop)
        }
      },
      readStrings: async (d, signal) => {
        throwIfAborted(signal)
        const stop = () => void pool.terminate()
        signal?.addEventListener('abort', stop, { once: true })
        try {
          return await pool.run<string[]>('readHdf5Strings', { path, dataset: d.path })
        } catch (e) {
          throwIfAborted(signal)
          throw named(e)
        } finally {
          signal?.removeEventListener('abort', stop)
        }
      },
      close: () => pool.terminate(),
    }
  } catch (e) {
    signal?.removeEventListener('abort', stop)
    await pool.terminate()
    throwIfAborted(signal)
    throw named(e)
  }
}

function netcdfFile(shown: string, file: FileHandle, size: number, header: NetcdfHeader): ArrayFile {
  const byPath = new Map<string, NetcdfVariable>(header.variables.map((v) => [v.info.path, v]))
  return {
    format: 'netcdf',
    shown,
    bytes: size,
    datasets: header.variables.map((v) => v.info),
    checkData: (d) => checkInFile(shown, header, byPath.get(d.path)!, size),
    async readRows(d, first, count) {
      const v = byPath.get(d.path)!
      try {
        return await readNetcdfRows(file, header, v, first, count)
      } catch (e) {
        throw new ApiError('io', `cannot read ${shown}: variable ${d.path}: ${(e as Error).message}`)
      }
    },
    async readStrings(d) {
      const v = byPath.get(d.path)!
      checkInFile(shown, header, v, size)
      try {
        return await readNetcdfStrings(shown, file, header, v)
      } catch (e) {
        if (e instanceof ApiError) throw e
        throw new ApiError('io', `cannot read ${shown}: variable ${d.path}: ${(e as Error).message}`)
      }
    },
    close: () => file.close(),
  }
}

/**
 * The dataset `name` names, numeric and of one of `ranks` dimensions; without a name, or with one
 * the file lacks, an error listing the file's datasets and saying how to name one (`how`).
 */
export function findDataset(f: ArrayFile, name: string | undefined, ranks: readonly number[], how: string): DatasetInfo {
  const kind = f.format === 'netcdf' ? 'variable' : 'dataset'
  if (!name) throw new ApiError('invalid-argument', `${f.shown}: ${f.format === 'netcdf' ? 'a NetCDF' : 'an HDF5'} file; name one with ${how}. Its ${kind}s: ${listingText(f.datasets)}`)
  const d = f.datasets.find((x) => x.path === datasetKey(name))
  if (!d) throw new ApiError('invalid-argument', `${f.shown}: no ${kind} ${datasetKey(name)}; name one with ${how}. Its ${kind}s: ${listingText(f.datasets)}`)
  const where = `${f.shown}: ${kind} ${d.path} (${d.dtype}, ${shapeText(d.shape)})`
  if (d.unreadable) throw new ApiError('invalid-input', `${where}: ${d.unreadable}${isNumeric(d.dtype) ? '' : '; numbers (int8–64, uint8–64, float16, float32, float64) are read'}`)
  if (!ranks.includes(d.shape.length)) throw new ApiError('invalid-input', `${where} is ${d.shape.length}-D; ${ranks.join('- or ')}-D is read here`)
  return d
}

/** Elements one array of f64 holds at most. */
export const MAX_ELEMENTS = 2 ** 32 - 1

/**
 * Why a dataset of `shape` cannot be held as f64 with `memory` bytes available, or undefined: its
 * elements (a product that may pass 2^53, where it is only compared) against one array's limit and
 * the memory, which the message names.
 */
export function elementsRefusal(shape: readonly number[], memory: number): string | undefined {
  const elements = shape.reduce((p, n) => p * n, 1)
  if (elements <= MAX_ELEMENTS && elements * 8 <= memory) return undefined
  return `announces ${shapeText(shape)} = ${elements.toExponential(3)} elements (${(elements * 8 / 1e9).toFixed(1)} GB as f64); ${(memory / 1e9).toFixed(1)} GB are available and one array holds at most ${MAX_ELEMENTS}`
}

/** Refuses, from its shape alone, a dataset whose values as f64 would not fit one array or the memory available now, or that lies past the file's end. */
export function checkElements(f: ArrayFile, d: DatasetInfo, memory = process.availableMemory()): void {
  const kind = f.format === 'netcdf' ? 'variable' : 'dataset'
  f.checkData(d)
  const why = elementsRefusal(d.shape, memory) ?? d.unstored
  if (why) throw new ApiError('invalid-input', `${f.shown}: ${kind} ${d.path} ${why}`)
}

export interface PieceOptions {
  signal?: AbortSignal
  progress?: (fraction: number) => void
  /**
   * Cells that hold no value (NetCDF's fill values and valid range): `skip` leaves them out of
   * the values handed on and counts them; `refuse` (the default) refuses the read, naming the element.
   */
  missing?: 'skip' | 'refuse'
}

/**
 * Reads a dataset's rows a piece at a time (whole rows of at most PIECE_BYTES as f64, aligned to its
 * chunks), handing each to `place` (with `skip`, only the piece's values that are not missing, and
 * how many were); cancel is seen between pieces and ends a read in progress. Non-finite values are
 * refused, as a CSV's are, naming the element.
 */
export async function readPieces(f: ArrayFile, d: DatasetInfo, opts: PieceOptions, place: (first: number, rows: number, values: Float64Array, missing: number) => void): Promise<void> {
  const rows = d.shape.length === 0 ? 1 : d.shape[0]
  const per = d.shape.slice(1).reduce((p, n) => p * n, 1)
  const kind = f.format === 'netcdf' ? 'variable' : 'dataset'
  const at = (i: number, first: number) => {
    const row = first + Math.floor(i / per)
    return d.shape.length > 1 ? `[${row}, ${i % per}]` : `[${row}]`
  }
  let step = Math.max(1, Math.floor(PIECE_BYTES / 8 / Math.max(per, 1)))
  if (d.chunkRows) step = Math.max(d.chunkRows, Math.floor(step / d.chunkRows) * d.chunkRows)
  for (let first = 0; first < rows; first += step) {
    throwIfAborted(opts.signal)
    const count = Math.min(step, rows - first)
    const read = await f.readRows(d, first, count, opts.signal)
    let values = read.values
    if (values.length !== count * per) throw new ApiError('internal', `${f.shown}: ${d.path}: ${values.length} values read for ${count} rows of ${per}`)
    const { mask, inexact } = applyRule(values, d.dtype, d.missing, read.beyond)
    if (inexact)
      throw new ApiError('invalid-input', `${f.shown}: ${kind} ${d.path}, element ${at(inexact.at, first)} is ${inexact.value}, beyond ±9007199254740992: no double holds it exactly, and a 64-bit integer is read only within that range`)
    for (let i = 0; i < values.length; i++)
      if (!Number.isFinite(values[i]) && !mask?.[i]) throw new ApiError('invalid-input', `${f.shown}: ${kind} ${d.path}, element ${at(i, first)} is ${values[i]}; every value must be a finite number`)
    let missing = 0
    if (mask) {
      const i = mask.indexOf(1)
      if (opts.missing !== 'skip') throw new ApiError('invalid-input', `${f.shown}: ${kind} ${d.path}, element ${at(i, first)} is missing (${values[i]}: ${missingText(d)}); every value must be a number`)
      values = values.filter((_, k) => mask[k] === 0)
      missing = count * per - values.length
    }
    place(first, count, values, missing)
    opts.progress?.((first + count) / rows)
  }
}

/** What makes a cell missing, for a message: `_FillValue -9999`, `outside valid_range 0…100`. */
function missingText(d: DatasetInfo): string {
  const r = d.missing!
  const parts = [...(r.values.length ? [`fill value or missing_value ${r.values.join(', ')}`] : []), ...(r.nan ? ['fill value NaN'] : [])]
  if (r.min !== undefined || r.max !== undefined) parts.push(`valid range ${r.min ?? '−∞'}…${r.max ?? '∞'}`)
  return parts.join('; ')
}
