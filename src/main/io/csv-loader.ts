// Loads numeric columns of a CSV file with worker threads: the data is cut into byte ranges of
// whole lines, and threads parse ranges and place their values straight into the shared columns,
// in row order (csv/ordered-columns.ts). Range sizes and threads are planned so that the memory
// the threads hold besides the columns stays bounded at any core count (csv/plan.ts).
import { availableParallelism } from 'node:os'
import { ApiError } from '../../shared/errors'
import { throwIfAborted } from '../../shared/cancel'
import { withPool } from '../workers/pool'
import { csvError } from './csv/errors'
import { ioError, openForReading } from './open-for-reading'
import { nameList, quoteText } from './quote'
import { readHeader } from './csv/header'
import type { RangeResult, RangeTask } from './csv/parse-range'
import { PLACED, columnView, columnViews, createOrderedColumns, overflowOf, rangeState } from './csv/ordered-columns'
import { lineDensity, planLoad } from './csv/plan'
import { splitRanges } from './csv/ranges'
import { maxOf } from '../../shared/extent'
import { hashAlongside } from './input-digest'

export interface CsvColumn {
  /** Non-missing values in row order, backed by a SharedArrayBuffer. */
  values: Float64Array
  /** Empty cells skipped. */
  missing: number
}

export interface CsvTable {
  path: string
  bytes: number
  /** Data rows. */
  rows: number
  header: string[]
  columns: Record<string, CsvColumn>
  load_ms: number
  /** Worker threads that parsed it (planned from the cores and the memory budget) and the range size. */
  threads: number
  rangeBytes: number
}

export interface CsvProgress {
  bytesRead: number
  totalBytes: number
  rows: number
}

export interface LoadCsvOptions {
  columns: string[]
  signal?: AbortSignal
  progress?: (p: CsvProgress) => void
  /**
   * Called as the loaded part grows, with each column's values so far (in `columns` order,
   * repeats dropped): a
   * prefix that later calls extend and never change, so a consumer (a GPU upload) can start on
   * it before the load ends. Not called for the values of a load that then fails.
   */
  placed?: (prefixes: Float64Array[]) => void
  /** Worker threads; default os.availableParallelism(). */
  threads?: number
  /** Bytes per range handed to a thread (default: planned from the memory budget, 1–16 MiB). */
  rangeBytes?: number
  /** Bytes a thread reads at a time (default 256 KiB, to parse from the cache). */
  blockBytes?: number
}

const DEFAULT_BLOCK_BYTES = 256 * 1024

/** The header's column names, trimmed. */
export async function readCsvHeader(path: string, signal?: AbortSignal): Promise<string[]> {
  return (await readHeader(path, signal)).names
}

export async function loadCsv(path: string, opts: LoadCsvOptions): Promise<CsvTable> {
  const t0 = performance.now()
  const { signal, progress } = opts
  const threads = positive('threads', opts.threads ?? availableParallelism())
  if (opts.rangeBytes !== undefined) positive('rangeBytes', opts.rangeBytes)
  const blockBytes = positive('blockBytes', opts.blockBytes ?? DEFAULT_BLOCK_BYTES)
  throwIfAborted(signal)
  const head = await readHeader(path, signal)
  // The ranges are parsed on the loader threads: a job's sha256 of the file is taken on this thread meanwhile (input-digest.ts).
  hashAlongside(path, signal)
  const wanted = [...new Set(opts.columns)]
  const slots = head.names.map(() => -1)
  wanted.forEach((name, slot) => {
    const at = head.names.indexOf(name)
    if (at < 0) throw csvError(path, undefined, `no column ${quoteText(name)}; columns are: ${nameList(head.names)}`)
    slots[at] = slot
  })
  const plan = planLoad({
    dataBytes: head.bytes - head.dataStart,
    threads,
    valuesPerByte: opts.rangeBytes === undefined ? wanted.length * (await probeDensity(path, head.dataStart, head.bytes)) : 0,
    rangeBytes: opts.rangeBytes,
  })
  const ranges = await splitRanges(path, head.dataStart, head.bytes, plan.rangeBytes)
  throwIfAborted(signal)

  // Rows take at least one byte per field, which bounds the values of a column.
  const fields = head.names.length
  const threadCount = Math.max(1, Math.min(plan.threads, ranges.length))
  // Two chunk slots per thread: one being parsed into, one waiting for its place.
  const rangeValues = Math.floor(Math.max(0, maxOf(ranges.map((r) => r.end - r.start))) / fields) + 1
  const placed = createOrderedColumns(wanted.length, ranges.length, Math.floor((head.bytes - head.dataStart) / fields) + 1, rangeValues, 2 * threadCount)
  const counts = wanted.map(() => 0)
  const missing = wanted.map(() => 0)
  let rows = 0
  let bytesRead = head.dataStart
  let rowsRead = 0
  progress?.({ bytesRead, totalBytes: head.bytes, rows: 0 })

  if (ranges.length > 0) {
    await withPool('csv-worker', threadCount, signal, async (pool) => {
      // Every range is queued at once: the threads place values straight into the columns, so
      // queued ranges hold no memory. Results are read in order, so the first problem in the
      // file is the one reported.
      const results = ranges.map(({ start, end }, index) => {
        const task: RangeTask = { path, start, end, names: head.names, slots, blockBytes, index, columns: placed }
        return pool
          .run<RangeResult>('parseRange', task)
          .then((ok) => {
            bytesRead += end - start
            rowsRead += ok.rows
            progress?.({ bytesRead, totalBytes: head.bytes, rows: rowsRead })
            return { ok }
          })
          .catch((error: unknown) => ({ error }))
      })
      let lines = 1 // the header
      for (const result of results) {
        const settled = await result
        throwIfAborted(signal)
        if ('error' in settled) throw settled.error
        const r = settled.ok
        if (r.fault) throw csvError(path, lines + r.fault.line, r.fault.message, r.fault.column)
        if (r.skipped) break // an earlier range could not be placed: found below
        wanted.forEach((_, s) => {
          counts[s] += r.counts[s]
          missing[s] += r.missing[s]
        })
        rows += r.rows
        lines += r.lines
        // Every range up to this one is placed and copied: its task, or an earlier one whose
        // thread placed the ranges after its own, has returned.
        opts.placed?.(wanted.map((_, s) => columnView(placed, s, 0, counts[s])))
      }
    })
    // Every task has ended, so every range is settled: all placed, unless a column overflowed.
    for (let i = 0; i < ranges.length; i++) {
      if (rangeState(placed, i) === PLACED) continue
      const over = overflowOf(placed, i)
      if (over >= 0) throw csvError(path, undefined, `column ${quoteText(wanted[over])} has more values than one column can hold`)
      throw new ApiError('internal', `range ${i} of ${path} (bytes ${ranges[i].start}–${ranges[i].end}) was not placed`)
    }
  }
  throwIfAborted(signal)
  if (rows === 0) throw csvError(path, undefined, 'no data rows')
  const views = columnViews(placed, counts)
  const columns: Record<string, CsvColumn> = {}
  wanted.forEach((name, s) => (columns[name] = { values: views[s], missing: missing[s] }))
  return { path, bytes: head.bytes, rows, header: head.names, columns, load_ms: performance.now() - t0, threads: threadCount, rangeBytes: plan.rangeBytes }
}

/** Lines per byte at the start of the data, for the plan. */
async function probeDensity(path: string, start: number, end: number): Promise<number> {
  const file = await openForReading(path)
  try {
    return await lineDensity(file, start, end)
  } catch (e) {
    throw ioError(path, e)
  } finally {
    await file.close()
  }
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ApiError('invalid-argument', `${name} must be a positive integer, got ${value}`)
  if (value > Number.MAX_SAFE_INTEGER) throw new ApiError('invalid-argument', `${name} ${value} exceeds ${Number.MAX_SAFE_INTEGER} (2^53 − 1), the largest accepted`)
  return value
}

