// Loads numeric columns of a Parquet file as the CSV loader does (the same table, so statistics
// and correlation treat both alike): the footer's bytes are read here and parsed and checked on a
// loader thread (plan.ts), then the loader's threads read row groups, each straight into its rows
// of the shared columns (table-parts.ts).
import { throwIfAborted } from '../../../shared/cancel'
import type { CsvTable } from '../csv-loader'
import { loadParts, type LoadTableOptions } from '../table-parts'
import { withPool } from '../../workers/pool'
import { readParquetFooterBytes } from './footer'
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

export async function loadParquet(path: string, opts: LoadTableOptions): Promise<CsvTable> {
  throwIfAborted(opts.signal)
  const planned = await plan(path, [...new Set(opts.columns)], opts.signal)
  const nulls = opts.nulls ?? 'missing'
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

