// The loader's threads over the parts of a binary table (Parquet row groups, Arrow record batches):
// every part's rows are known from the file's metadata, so each thread writes its part straight
// into its rows of the shared columns. Parts are taken back in file order, so the first problem in
// the file is the one reported, and the nulls a part skipped are closed up as its turn comes.
import { availableParallelism } from 'node:os'
import { throwIfAborted } from '../../shared/cancel'
import { withPool } from '../workers/pool'
import type { CsvColumn, CsvTable, LoadCsvOptions } from './csv-loader'
import { Growable } from './csv/ordered-columns'
import { ApiError } from '../../shared/errors'
import { checkColumnRows, checkTableMemory } from './column-sizes'

export interface TablePart {
  rowStart: number
  rows: number
  /** Bytes of the file it reads, for progress. */
  bytes: number
}

export interface PartResult {
  /** Per output column: values placed from out[rowStart], and nulls skipped. */
  counts: number[]
  missing: number[]
}

export interface LoadTableOptions extends LoadCsvOptions {
  /** A null is a missing value (skipped and counted, as statistics count a CSV's empty cells) or an error naming its row. */
  nulls?: 'missing' | 'refuse'
}

export interface LoadPartsOptions<P extends TablePart> extends LoadTableOptions {
  path: string
  bytes: number
  header: string[]
  /** Worker entry and its task. */
  worker: string
  task: string
  parts: P[]
  /** What a thread is given for a part (the shared columns are added). */
  payload: (part: P) => object
  /** Memory available (default: process.availableMemory() now). */
  memory?: number
}

export async function loadParts<P extends TablePart>(opts: LoadPartsOptions<P>): Promise<CsvTable> {
  const t0 = performance.now()
  const { path, parts, signal, progress } = opts
  const wanted = [...new Set(opts.columns)]
  const rows = parts.reduce((n, g) => n + g.rows, 0)
  checkColumnRows(path, rows)
  if (rows === 0) throw new ApiError('invalid-input', `${path}: no data rows`)
  // Committed as values are written, but a few hundred bytes of metadata can claim billions of rows.
  checkTableMemory(path, rows, wanted.length, opts.memory)
  // Memory is committed as the threads write values: metadata announcing rows that the data does
  // not hold costs address space only, and is refused when the part is read.
  const columns = wanted.map(() => {
    const buffer = new Growable(0, { maxByteLength: rows * 8 })
    buffer.grow(rows * 8)
    // A view of fixed length: element access on a length-tracking view of a growable buffer is slow.
    return new Float64Array(buffer, 0, rows)
  })
  const counts = wanted.map(() => 0)
  const missing = wanted.map(() => 0)
  const threads = Math.max(1, Math.min(opts.threads ?? availableParallelism(), parts.length))
  let bytesRead = 0
  let rowsRead = 0
  progress?.({ bytesRead, totalBytes: opts.bytes, rows: 0 })
  await withPool(opts.worker, threads, signal, async (pool) => {
    const results = parts.map((p) => pool.run<PartResult>(opts.task, { ...opts.payload(p), columns }).then((ok) => ({ ok }), (error: unknown) => ({ error })))
    for (const [k, pending] of results.entries()) {
      const settled = await pending
      throwIfAborted(signal)
      if ('error' in settled) throw settled.error
      const part = parts[k]
      wanted.forEach((_, s) => {
        const n = settled.ok.counts[s]
        if (counts[s] !== part.rowStart) columns[s].copyWithin(counts[s], part.rowStart, part.rowStart + n)
        counts[s] += n
        missing[s] += settled.ok.missing[s]
      })
      bytesRead += part.bytes
      rowsRead += part.rows
      progress?.({ bytesRead, totalBytes: opts.bytes, rows: rowsRead })
      opts.placed?.(columns.map((c, s) => c.subarray(0, counts[s])))
    }
  })
  throwIfAborted(signal)
  const table: Record<string, CsvColumn> = {}
  wanted.forEach((name, s) => (table[name] = { values: columns[s].subarray(0, counts[s]), missing: missing[s] }))
  return { path, bytes: opts.bytes, rows, header: opts.header, columns: table, load_ms: performance.now() - t0, threads, rangeBytes: 0 }
}
