// Loads numeric columns of a CSV file with worker threads: the data is cut into byte ranges of
// whole lines, threads parse ranges straight into shared memory lent for each range, and the
// loader appends those chunks to the columns in row order and lends the memory again.
import { availableParallelism } from 'node:os'
import { ApiError } from '../../shared/errors'
import { throwIfAborted } from '../../shared/cancel'
import { withPool } from '../workers/pool'
import { ColumnSink } from './csv/column-sink'
import { csvError, nameList, quoteText } from './csv/errors'
import { readHeader } from './csv/header'
import type { RangeResult, RangeTask } from './csv/parse-range'
import { splitRanges } from './csv/ranges'

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
  /** Worker threads; default os.availableParallelism(). */
  threads?: number
  /** Bytes per range handed to a thread (default 16 MiB): smaller gives smoother progress. */
  rangeBytes?: number
  /** Bytes a thread reads at a time (default 256 KiB, to parse from the cache). */
  blockBytes?: number
}

const DEFAULT_RANGE_BYTES = 16 * 1024 * 1024
const DEFAULT_BLOCK_BYTES = 256 * 1024

/** The header's column names, trimmed. */
export async function readCsvHeader(path: string): Promise<string[]> {
  return (await readHeader(path)).names
}

export async function loadCsv(path: string, opts: LoadCsvOptions): Promise<CsvTable> {
  const t0 = performance.now()
  const { signal, progress } = opts
  const threads = positive('threads', opts.threads ?? availableParallelism())
  const rangeBytes = positive('rangeBytes', opts.rangeBytes ?? DEFAULT_RANGE_BYTES)
  const blockBytes = positive('blockBytes', opts.blockBytes ?? DEFAULT_BLOCK_BYTES)
  throwIfAborted(signal)
  const head = await readHeader(path)
  const wanted = [...new Set(opts.columns)]
  const slots = head.names.map(() => -1)
  wanted.forEach((name, slot) => {
    const at = head.names.indexOf(name)
    if (at < 0) throw csvError(path, undefined, `no column ${quoteText(name)}; columns are: ${nameList(head.names)}`)
    slots[at] = slot
  })
  const ranges = await splitRanges(path, head.dataStart, head.bytes, rangeBytes)
  throwIfAborted(signal)

  // Rows take at least one byte per field, which bounds the values of a column and of a range.
  const fields = head.names.length
  const sinks = wanted.map(() => new ColumnSink(Math.floor((head.bytes - head.dataStart) / fields) + 1))
  const chunkValues = ranges.reduce((most, r) => Math.max(most, Math.floor((r.end - r.start) / fields) + 1), 0)
  const missing = wanted.map(() => 0)
  let rows = 0
  let bytesRead = head.dataStart
  let rowsRead = 0
  progress?.({ bytesRead, totalBytes: head.bytes, rows: 0 })

  if (ranges.length > 0) {
    // Chunk memory for the ranges in flight, reused: untouched pages of it cost nothing.
    const free: SharedArrayBuffer[][] = []
    const lend = () => free.pop() ?? wanted.map(() => new SharedArrayBuffer(chunkValues * 8))
    await withPool('csv-worker', Math.min(threads, ranges.length), signal, async (pool) => {
      // A window of queued ranges keeps the threads busy while bounding the chunks in flight;
      // results are read in order, so the first problem in the file is the one reported.
      const window = threads * 2
      const pending: { output: SharedArrayBuffer[]; result: Promise<{ ok: RangeResult } | { error: unknown }> }[] = []
      let submitted = 0
      const submit = (upTo: number) => {
        for (; submitted < Math.min(upTo, ranges.length); submitted++) {
          const { start, end } = ranges[submitted]
          const output = lend()
          const task: RangeTask = { path, start, end, names: head.names, slots, blockBytes, output }
          const result = pool
            .run<RangeResult>('parseRange', task)
            .then((ok) => {
              bytesRead += end - start
              rowsRead += ok.rows
              progress?.({ bytesRead, totalBytes: head.bytes, rows: rowsRead })
              return { ok }
            })
            .catch((error: unknown) => ({ error }))
          pending[submitted] = { output, result }
        }
      }
      let lines = 1 // the header
      for (let i = 0; i < ranges.length; i++) {
        submit(i + window)
        const { output, result } = pending[i]
        const settled = await result
        delete pending[i]
        throwIfAborted(signal)
        if ('error' in settled) throw settled.error
        const r = settled.ok
        if (r.fault) throw csvError(path, lines + r.fault.line, r.fault.message)
        wanted.forEach((name, s) => {
          if (!sinks[s].append(new Float64Array(output[s], 0, r.counts[s])))
            throw csvError(path, undefined, `column ${quoteText(name)} has more values than one column can hold`)
          missing[s] += r.missing[s]
        })
        free.push(output)
        rows += r.rows
        lines += r.lines
      }
    })
  }
  throwIfAborted(signal)
  if (rows === 0) throw csvError(path, undefined, 'no data rows')
  const columns: Record<string, CsvColumn> = {}
  wanted.forEach((name, s) => (columns[name] = { values: sinks[s].values, missing: missing[s] }))
  return { path, bytes: head.bytes, rows, header: head.names, columns, load_ms: performance.now() - t0 }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new ApiError('invalid-argument', `${name} must be a positive integer, got ${value}`)
  return value
}

