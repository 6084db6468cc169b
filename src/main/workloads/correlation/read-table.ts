// Series from a Parquet or Arrow table: a series per numeric column, read by the shared table
// loader on its threads. Every cell must hold a number, so a null is an error naming its row and
// column, as an empty CSV cell is.
import { binaryTableColumns, loadTable } from '../../io/table-loader'
import type { ReadCsvOptions } from './read-csv'
import { type SeriesMatrix, seriesMatrix } from './series-matrix'

/** The columns to read as series: those asked for, or every numeric one (the others left out). */
export async function chooseTableColumns(path: string, requested?: string[], signal?: AbortSignal): Promise<{ names: string[]; leftOut: string[] }> {
  if (requested?.length) return { names: [...new Set(requested)], leftOut: [] }
  const cols = await binaryTableColumns(path, signal)
  return { names: cols?.numeric ?? [], leftOut: cols?.other ?? [] }
}

export async function readTableColumns(path: string, opts: ReadCsvOptions & { columns: string[] }): Promise<SeriesMatrix> {
  const names = opts.columns
  const table = await loadTable(path, { columns: names, signal: opts.signal, nulls: 'refuse', progress: (p) => opts.progress?.(p.bytesRead / p.totalBytes) })
  const m = names.length
  const n = table.rows
  const values = new Float64Array(m * n)
  names.forEach((name, i) => values.set(table.columns[name].values, i * n))
  return seriesMatrix(names, values, m, n)
}
