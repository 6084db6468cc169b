// Tables of numeric columns from CSV, Parquet or Arrow files, the format decided by the file's
// content (sniff.ts), never by its name: the same table (csv-loader.ts's CsvTable) whichever it is.
import type { CsvTable } from './csv-loader'
import { loadCsv, readCsvHeader } from './csv-loader'
import { sniffFile } from './sniff'
import type { LoadTableOptions } from './table-parts'
import { hashAlongside } from './input-digest'

export type TableFormat = 'csv' | 'parquet' | 'arrow'

/**
 * Parquet or Arrow by their magic bytes; text is CSV. Binary content of no known kind goes to the
 * reader its name claims (.parquet, .arrow, .feather), which refuses it naming the magic it lacks.
 */
export async function tableFormat(path: string): Promise<TableFormat> {
  const { kind } = await sniffFile(path).catch(() => ({ kind: 'text' as const }))
  if (kind === 'parquet' || kind === 'arrow') return kind
  if (kind !== 'text') {
    const lower = path.toLowerCase()
    if (lower.endsWith('.parquet')) return 'parquet'
    if (lower.endsWith('.arrow') || lower.endsWith('.feather')) return 'arrow'
  }
  return 'csv'
}

/** The file's numeric columns, and those left out as not numbers (null for a CSV: its kinds come from sampling its rows). */
export async function binaryTableColumns(path: string, signal?: AbortSignal): Promise<{ format: 'parquet' | 'arrow'; names: string[]; numeric: string[]; other: string[] } | null> {
  const format = await tableFormat(path)
  if (format === 'parquet') {
    const { readParquetColumns } = await import('./parquet/load-parquet')
    const cols = await readParquetColumns(path, signal)
    return { format, names: cols.names, numeric: cols.numeric, other: cols.other.map((c) => c.name) }
  }
  if (format === 'arrow') {
    const { readArrowColumns } = await import('./arrow/load-arrow')
    const kinds = await readArrowColumns(path, signal)
    return { format, names: kinds.map((k) => k.name), numeric: kinds.filter((k) => !k.holds).map((k) => k.name), other: kinds.filter((k) => k.holds).map((k) => k.name) }
  }
  return null
}

/** Column names: a CSV's header, a Parquet or Arrow file's schema. */
export async function readTableHeader(path: string, signal?: AbortSignal): Promise<string[]> {
  return (await binaryTableColumns(path, signal))?.names ?? (await readCsvHeader(path, signal))
}

export async function loadTable(path: string, opts: LoadTableOptions): Promise<CsvTable> {
  const format = await tableFormat(path)
  // Read by row groups or record batches on the loader threads: a job's sha256 of it is taken meanwhile (input-digest.ts); loadCsv does likewise.
  if (format !== 'csv') hashAlongside(path, opts.signal)
  if (format === 'parquet') return (await import('./parquet/load-parquet')).loadParquet(path, opts)
  if (format === 'arrow') return (await import('./arrow/load-arrow')).loadArrow(path, opts)
  return loadCsv(path, opts)
}
