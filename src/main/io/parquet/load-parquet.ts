// Loads numeric columns of a Parquet file as the CSV loader does (the same table, so statistics
// and correlation treat both alike): the footer is read and checked here, then the loader's threads
// read row groups, each straight into its rows of the shared columns. Results come back in row
// group order, so the first problem in the file is the one reported; nulls skipped in a row group
// are closed up as its turn comes.
import { availableParallelism } from 'node:os'
import { throwIfAborted } from '../../../shared/cancel'
import { withPool } from '../../workers/pool'
import type { CsvColumn, CsvTable, LoadCsvOptions } from '../csv-loader'
import { nameList, quoteText } from '../csv/errors'
import { Growable, MAX_COLUMN_BYTES } from '../csv/ordered-columns'
import { codecSupported, SUPPORTED_CODECS } from './codecs'
import { parquetError, readParquetFooter, type ParquetFooter } from './footer'
import type { ChunkTask, RowGroupResult, RowGroupTask } from './row-group'
import { parquetColumns, type NumericColumn, type ParquetColumns } from './schema'

export interface LoadParquetOptions extends LoadCsvOptions {
  /** Nulls are missing values (skipped and counted, as a CSV's empty cells are for statistics) or errors. */
  nulls?: 'missing' | 'refuse'
}

/** The file's column names and which of them hold numbers. */
export async function readParquetColumns(path: string): Promise<ParquetColumns> {
  return parquetColumns((await readParquetFooter(path)).meta)
}

/** The columns asked for, each checked to exist and to hold numbers. */
export function numericColumnsNamed(path: string, cols: ParquetColumns, wanted: string[]): NumericColumn[] {
  return wanted.map((name) => {
    const col = cols.numeric.find((c) => c.name === name)
    if (col) return col
    const other = cols.other.find((c) => c.name === name)
    if (other) throw parquetError(path, undefined, `column ${quoteText(name)} holds ${other.holds}, not numbers`)
    throw parquetError(path, undefined, `no column ${quoteText(name)}; columns are: ${nameList(cols.names)}`)
  })
}

export async function loadParquet(path: string, opts: LoadParquetOptions): Promise<CsvTable> {
  const t0 = performance.now()
  const { signal, progress } = opts
  throwIfAborted(signal)
  const footer = await readParquetFooter(path)
  const schema = parquetColumns(footer.meta)
  const wanted = [...new Set(opts.columns)]
  const cols = numericColumnsNamed(path, schema, wanted)
  const groups = planGroups(path, footer, cols, opts.nulls ?? 'missing')
  const rows = groups.reduce((n, g) => n + g.rows, 0)
  if (rows * 8 > MAX_COLUMN_BYTES) throw parquetError(path, undefined, `${rows} rows: a column holds at most ${MAX_COLUMN_BYTES / 8} values`)
  // Memory is committed as the threads write values: a footer announcing rows that its pages do
  // not hold costs address space only, and is refused when the pages are read.
  const columns = cols.map(() => {
    const buffer = new Growable(0, { maxByteLength: Math.max(rows, 1) * 8 })
    buffer.grow(rows * 8)
    return new Float64Array(buffer)
  })
  const counts = cols.map(() => 0)
  const missing = cols.map(() => 0)
  const threads = Math.max(1, Math.min(opts.threads ?? availableParallelism(), groups.length))
  let bytesRead = 0
  let rowsRead = 0
  progress?.({ bytesRead, totalBytes: footer.bytes, rows: 0 })
  if (groups.length > 0) {
    await withPool('parquet-worker', threads, signal, async (pool) => {
      const results = groups.map((g) => pool.run<RowGroupResult>('readRowGroup', { ...g, path, columns }).then((ok) => ({ ok }), (error: unknown) => ({ error })))
      for (const [k, pending] of results.entries()) {
        const settled = await pending
        throwIfAborted(signal)
        if ('error' in settled) throw settled.error
        const g = groups[k]
        cols.forEach((_, s) => {
          const n = settled.ok.counts[s]
          // Nulls leave the group's values short of its rows: close them up behind the values before.
          if (counts[s] !== g.rowStart) columns[s].copyWithin(counts[s], g.rowStart, g.rowStart + n)
          counts[s] += n
          missing[s] += settled.ok.missing[s]
        })
        bytesRead += g.bytes
        rowsRead += g.rows
        progress?.({ bytesRead, totalBytes: footer.bytes, rows: rowsRead })
        opts.placed?.(columns.map((c, s) => c.subarray(0, counts[s])))
      }
    })
  }
  throwIfAborted(signal)
  if (rows === 0) throw parquetError(path, undefined, 'no data rows')
  const table: Record<string, CsvColumn> = {}
  wanted.forEach((name, s) => (table[name] = { values: columns[s].subarray(0, counts[s]), missing: missing[s] }))
  return { path, bytes: footer.bytes, rows, header: schema.names, columns: table, load_ms: performance.now() - t0, threads, rangeBytes: 0 }
}

type GroupPlan = Omit<RowGroupTask, 'path' | 'columns'> & { bytes: number }

/** Each row group's chunks of the wanted columns, each checked to lie within the file's data and to use a codec read here. */
function planGroups(path: string, footer: ParquetFooter, cols: NumericColumn[], nulls: 'missing' | 'refuse'): GroupPlan[] {
  const plans: GroupPlan[] = []
  let rowStart = 0
  footer.meta.row_groups.forEach((group, g) => {
    const rows = Number(group.num_rows)
    if (!Number.isSafeInteger(rows) || rows < 0) throw parquetError(path, `row group ${g}`, `announces ${group.num_rows} rows`)
    let bytes = 0
    const chunks: ChunkTask[] = cols.map((column, slot) => {
      const where = `row group ${g}, column ${quoteText(column.name)}`
      const chunk = group.columns[column.chunk]
      const meta = chunk?.meta_data
      if (!meta) throw parquetError(path, where, 'the column chunk has no metadata (an encrypted file?)')
      if (chunk.file_path) throw parquetError(path, where, `the column chunk is in another file (${quoteText(chunk.file_path)})`)
      if (!codecSupported(meta.codec))
        throw parquetError(path, where, `compression ${meta.codec} is not supported; Paralab reads ${SUPPORTED_CODECS.join(', ').toLowerCase()} (e.g. DuckDB: COPY (FROM 'in.parquet') TO 'out.parquet' (FORMAT parquet, COMPRESSION zstd))`)
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset)
      const size = Number(meta.total_compressed_size)
      const end = start + size
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(size) || start < 4 || size < 0 || end > footer.dataEnd)
        throw parquetError(path, where, `the column chunk announces bytes ${start}–${end}, past the file's data (bytes 4–${footer.dataEnd})`)
      bytes += size
      return { column, slot, start, end, codec: meta.codec }
    })
    plans.push({ group: g, rowStart, rows, chunks, nulls, bytes })
    rowStart += rows
  })
  return plans
}

/** Refused columns for messages: those of `cols` that hold no numbers. */
export function leftOutColumns(cols: ParquetColumns): string[] {
  return cols.other.map((c) => c.name)
}

