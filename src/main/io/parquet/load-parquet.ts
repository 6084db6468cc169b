// Loads numeric columns of a Parquet file as the CSV loader does (the same table, so statistics
// and correlation treat both alike): the footer's bytes are read here and parsed and checked
// (plan.ts; a long footer on a loader thread), then the loader's threads read row groups, each
// straight into its rows of the shared columns (table-parts.ts).
import { throwIfAborted } from '../../../shared/cancel'
import type { CsvTable } from '../csv-loader'
import { loadParts, type LoadTableOptions } from '../table-parts'
import { withPool } from '../../workers/pool'
import { readParquetFooterBytes } from './footer'
import { planParquet, type ParquetPlan } from './plan'

/** Footers of at most this many bytes are planned here (in well under a millisecond); longer ones take a thread of their own. */
const FOOTER_PLANNED_HERE = 64 * 1024

/** The footer's plan: a long footer's made on a thread of its own, since one of megabytes takes seconds and a server must go on answering meanwhile. */
async function plan(path: string, wanted: string[], signal?: AbortSignal): Promise<ParquetPlan> {
  const footer = await readParquetFooterBytes(path)
  if (footer.footer.length <= FOOTER_PLANNED_HERE) return planParquet({ ...footer, path, wanted })
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

