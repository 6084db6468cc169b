// Loads numeric columns of a Parquet file as the CSV loader does (the same table, so statistics
// and correlation treat both alike): the footer's bytes are read here and parsed and checked on a
// loader thread (plan.ts), then the loader's threads read row groups, each straight into its rows
// of the shared columns (table-parts.ts).
import { throwIfAborted } from '../../../shared/cancel'
import type { CsvTable } from '../csv-loader'
import { loadParts, type LoadTableOptions } from '../table-parts'
import { withPool } from '../../workers/pool'
import { parquetError, readParquetFooterBytes } from './footer'
import type { ParquetPlan } from './plan'

/** The footer's plan, made on a thread of its own. */
async function plan(path: string, wanted: string[], signal?: AbortSignal): Promise<ParquetPlan> {
  const footer = await readParquetFooterBytes(path)
  return withPool('parquet-worker', 1, signal, (pool) => pool.run<ParquetPlan>('planParquet', { ...footer, path, wanted }))
}

/** The file's column names and which of them hold numbers. */
export async function readParquetColumns(path: string, signal?: AbortSignal): Promise<ParquetPlan> {
  return plan(path, [], signal)
}

/**
 * Refuses a load whose columns would not fit the memory available now: a few hundred bytes of
 * run-length encoding can announce 2^29 rows a column, which a reader must hold as doubles.
 */
export function checkTableMemory(path: string, rows: number, columns: number, memory = process.availableMemory()): void {
  const need = rows * columns * 8
  if (need > memory)
    throw parquetError(path, 'footer', `${rows} rows of ${columns} column${columns === 1 ? '' : 's'} need ${(need / 1e9).toFixed(1)} GB as doubles; ${(memory / 1e9).toFixed(1)} GB are available`)
}

export async function loadParquet(path: string, opts: LoadTableOptions): Promise<CsvTable> {
  throwIfAborted(opts.signal)
  const planned = await plan(path, [...new Set(opts.columns)], opts.signal)
  const nulls = opts.nulls ?? 'missing'
  checkTableMemory(path, planned.groups.reduce((n, g) => n + g.rows, 0), new Set(opts.columns).size)
  return loadParts({
    ...opts,
    path,
    bytes: planned.bytes,
    header: planned.names,
    worker: 'parquet-worker',
    task: 'readRowGroup',
    parts: planned.groups,
    payload: (g) => ({ ...g, path, nulls }),
  })
}

