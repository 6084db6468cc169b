// Writes generated series as CSV (a series per column under s0, s1, … or a series per line, its
// name first) or as a .npy array of <f4 (N × M for columns, M × N for rows); HDF5 is
// write-walks-hdf5.ts. Values are written as the shortest text that reads back as the same double,
// so a CSV holds exactly the f32 values.
// Streamed into a temporary file beside the target and renamed at the end: a reader never sees a
// partial file, and a failure leaves nothing behind.
import { randomBytes } from 'node:crypto'
import { type FileHandle, open, rename, stat, unlink } from 'node:fs/promises'
import { csvCell } from '../../../shared/csv'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import type { Layout } from '../../../shared/workloads/correlation/types'
import { tableFileFormat, writeTableFile } from '../../io/write-table'
import { npyHeader } from './npy'
import { indexNames } from './series-matrix'

export interface WriteSeriesOptions {
  layout: Layout
  force?: boolean
  signal?: AbortSignal
  progress?: (fraction: number) => void
}

/** Bytes per write. */
const BLOCK = 8 * 1024 * 1024

/** Writes m series of n f32 values (series after series) to `path` (.csv or .npy); returns the bytes written. */
export async function writeSeries(path: string, values: Float32Array, m: number, n: number, opts: WriteSeriesOptions): Promise<number> {
  if (tableFileFormat(path)) return writeTable(path, values, m, n, opts)
  const npy = path.toLowerCase().endsWith('.npy')
  if (/\.(h5|hdf5)$/i.test(path)) return (await import('./write-walks-hdf5')).writeSeriesHdf5(path, values, m, n, opts)
  if (!npy && !path.toLowerCase().endsWith('.csv')) throw new ApiError('invalid-argument', `${path}: the output must end in .csv, .npy, .parquet, .arrow, .feather or .h5`)
  return atomically(path, opts, (file) => (npy ? writeNpy(file, values, m, n, opts) : writeCsv(file, values, m, n, opts)))
}

/** Rows per Parquet row group or Arrow record batch. */
const TABLE_BLOCK_VALUES = 1 << 22

/** A series per column (s0, s1, …) of doubles holding the f32 values, as Parquet or Arrow. */
async function writeTable(path: string, values: Float32Array, m: number, n: number, opts: WriteSeriesOptions): Promise<number> {
  if (opts.layout !== 'columns') throw new ApiError('invalid-argument', `${path}: a Parquet or Arrow table holds a series per column; use --layout columns`)
  const rowsPerBlock = Math.max(1, Math.floor(TABLE_BLOCK_VALUES / m))
  function* blocks(): Generator<Float64Array[]> {
    for (let k0 = 0; k0 < n; k0 += rowsPerBlock) {
      const rows = Math.min(rowsPerBlock, n - k0)
      yield Array.from({ length: m }, (_, s) => Float64Array.from(values.subarray(s * n + k0, s * n + k0 + rows)))
      opts.progress?.((k0 + rows) / n)
    }
  }
  return writeTableFile(path, indexNames(m).map((name) => ({ name, type: 'double' as const })), blocks(), { force: opts.force, signal: opts.signal })
}

async function atomically(path: string, opts: WriteSeriesOptions, write: (file: FileHandle) => Promise<number>): Promise<number> {
  throwIfAborted(opts.signal)
  if (!opts.force && (await stat(path).then(() => true, () => false))) throw new ApiError('invalid-argument', `${path} already exists (use --force to overwrite)`)
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`
  let file: FileHandle | undefined
  try {
    file = await open(temp, 'wx')
    const bytes = await write(file)
    await file.close()
    file = undefined
    throwIfAborted(opts.signal)
    await rename(temp, path)
    return bytes
  } catch (e) {
    await file?.close().catch(() => {})
    await unlink(temp).catch(() => {})
    if (e instanceof ApiError) throw e
    throw new ApiError('io', `cannot write ${path}: ${(e as Error).message}`)
  }
}

async function writeNpy(file: FileHandle, values: Float32Array, m: number, n: number, opts: WriteSeriesOptions): Promise<number> {
  const header = npyHeader('<f4', opts.layout === 'rows' ? [m, n] : [n, m])
  await file.write(header)
  let bytes = header.length
  if (opts.layout === 'rows') {
    for (let at = 0; at < values.length; at += BLOCK / 4) {
      throwIfAborted(opts.signal)
      const part = values.subarray(at, Math.min(values.length, at + BLOCK / 4))
      await file.write(new Uint8Array(part.buffer, part.byteOffset, part.byteLength))
      bytes += part.byteLength
      opts.progress?.((at + part.length) / values.length)
    }
    return bytes
  }
  // Columns: sample k of every series is file row k.
  const rowsPerBlock = Math.max(1, Math.floor(BLOCK / 4 / m))
  const block = new Float32Array(rowsPerBlock * m)
  for (let k0 = 0; k0 < n; k0 += rowsPerBlock) {
    throwIfAborted(opts.signal)
    const rows = Math.min(rowsPerBlock, n - k0)
    for (let r = 0; r < rows; r++) for (let s = 0; s < m; s++) block[r * m + s] = values[s * n + k0 + r]
    await file.write(new Uint8Array(block.buffer, 0, rows * m * 4))
    bytes += rows * m * 4
    opts.progress?.((k0 + rows) / n)
  }
  return bytes
}

async function writeCsv(file: FileHandle, values: Float32Array, m: number, n: number, opts: WriteSeriesOptions): Promise<number> {
  const names = indexNames(m).map(csvCell)
  let bytes = 0
  let pending: string[] = []
  let pendingLength = 0
  const flush = async () => {
    const buf = Buffer.from(pending.join(''), 'utf8')
    pending = []
    pendingLength = 0
    await file.write(buf)
    bytes += buf.length
  }
  const line = async (text: string) => {
    pending.push(text)
    pendingLength += text.length
    if (pendingLength >= BLOCK) await flush()
  }
  const rows = opts.layout === 'rows' ? m : n
  if (opts.layout === 'columns') await line(names.join(',') + '\n')
  const cells = new Array<string>(opts.layout === 'rows' ? n : m)
  for (let r = 0; r < rows; r++) {
    if ((r & 255) === 0) {
      throwIfAborted(opts.signal)
      opts.progress?.(r / rows)
    }
    if (opts.layout === 'rows') {
      for (let k = 0; k < n; k++) cells[k] = String(values[r * n + k])
      await line(`${names[r]},${cells.join(',')}\n`)
    } else {
      for (let s = 0; s < m; s++) cells[s] = String(values[s * n + r])
      await line(cells.join(',') + '\n')
    }
  }
  await flush()
  opts.progress?.(1)
  return bytes
}
