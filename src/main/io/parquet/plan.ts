// What a Parquet file's footer says of a load, parsed and checked on a loader thread: the columns
// (which hold numbers), and each row group's chunks of the wanted columns, each checked to lie
// within the file's data and to use a codec read here.
import { nameList, quoteText } from '../quote'
import { codecSupported, SUPPORTED_CODECS } from './codecs'
import { parquetError, parseFooter, type ParquetFooter, type ParquetFooterBytes } from './footer'
import type { ChunkTask, RowGroupTask } from './row-group'
import { parquetColumns, type NumericColumn, type OtherColumn } from './schema'

/** What the footer says of a load: the columns, and each row group's chunks of the wanted ones. */
export interface ParquetPlan {
  bytes: number
  names: string[]
  numeric: string[]
  other: OtherColumn[]
  groups: GroupPlan[]
}

export interface PlanTask extends ParquetFooterBytes {
  path: string
  wanted: string[]
}

/** Parses and checks the footer (runs on a loader thread). */
export function planParquet(task: PlanTask): ParquetPlan {
  const footer = parseFooter(task.path, task)
  const cols = parquetColumns(task.path, footer.meta)
  const wanted = numericColumnsNamed(task.path, cols, task.wanted)
  return { bytes: footer.bytes, names: cols.names, numeric: cols.numeric.map((c) => c.name), other: cols.other, groups: planGroups(task.path, footer, wanted) }
}

/** The columns asked for, each checked to exist and to hold numbers. */
export function numericColumnsNamed(path: string, cols: ReturnType<typeof parquetColumns>, wanted: string[]): NumericColumn[] {
  return wanted.map((name) => {
    const col = cols.numeric.find((c) => c.name === name)
    if (col) return col
    const other = cols.other.find((c) => c.name === name)
    if (other) throw parquetError(path, undefined, `column ${quoteText(name)} holds ${other.holds}, not numbers`)
    throw parquetError(path, undefined, `no column ${quoteText(name)}; columns are: ${nameList(cols.names)}`)
  })
}

export type GroupPlan = Omit<RowGroupTask, 'path' | 'columns' | 'nulls'> & { bytes: number }

/** Each row group's chunks of the wanted columns, each checked to lie within the file's data and to use a codec read here. */
function planGroups(path: string, footer: ParquetFooter, cols: NumericColumn[]): GroupPlan[] {
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
      // A chunk must be the column's own: another type's bytes, or another column's, would read as other numbers.
      if (meta.type !== column.physical) throw parquetError(path, where, `the column chunk holds ${meta.type} values; the schema says ${column.physical}`)
      if (meta.path_in_schema?.length !== 1 || meta.path_in_schema[0] !== column.name)
        throw parquetError(path, where, `the column chunk is of column ${quoteText((meta.path_in_schema ?? []).join('.'))}`)
      // A flat column has one value (or null) a row.
      if (Number(meta.num_values) !== rows) throw parquetError(path, where, `the column chunk announces ${meta.num_values} values for the row group's ${rows} rows`)
      // The dictionary page comes first where there is one; an offset of 0, or one past the data
      // pages' (as some writers set it), is no dictionary's, as Arrow C++ reads chunks (unless the
      // data pages' offset is no place in the file: a chunk of no rows).
      const dictionary = Number(meta.dictionary_page_offset ?? 0)
      const data = Number(meta.data_page_offset)
      const start = dictionary >= 4 && (dictionary < data || data < 4) ? dictionary : data
      const size = Number(meta.total_compressed_size)
      const end = start + size
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(size) || start < 4 || size < 0 || end > footer.dataEnd)
        throw parquetError(path, where, `the column chunk announces bytes ${start}–${end}, past the file's data (bytes 4–${footer.dataEnd})`)
      bytes += size
      return { column, slot, start, end, codec: meta.codec }
    })
    plans.push({ group: g, rowStart, rows, chunks, bytes })
    rowStart += rows
  })
  if (BigInt(rowStart) !== BigInt(footer.meta.num_rows)) throw parquetError(path, 'footer', `the file announces ${footer.meta.num_rows} rows; its row groups hold ${rowStart}`)
  return plans
}
