// Which columns of a Parquet file hold numbers, and how each is stored: the loader reads flat
// columns of INT32, INT64, FLOAT, DOUBLE and DECIMAL (on INT32, INT64, FIXED_LEN_BYTE_ARRAY or
// BYTE_ARRAY); text, dates, times, booleans and nested columns are not numbers.
import type { FileMetaData, SchemaElement } from 'hyparquet'

export type Physical = 'INT32' | 'INT64' | 'FLOAT' | 'DOUBLE' | 'FIXED_LEN_BYTE_ARRAY' | 'BYTE_ARRAY'

/** A numeric column: where its chunks are in each row group and how its values become doubles. */
export interface NumericColumn {
  name: string
  /** Index of its chunk in every row group. */
  chunk: number
  physical: Physical
  /** Decimal places of a DECIMAL (0 otherwise): values are the stored integers / 10^scale. */
  scale: number
  decimal: boolean
  unsigned: boolean
  /** Bytes of a FIXED_LEN_BYTE_ARRAY value. */
  typeLength: number
  /** May hold nulls (its pages carry definition levels). */
  optional: boolean
}

export interface OtherColumn {
  name: string
  /** What it holds, for messages: `text`, `timestamps`, … */
  holds: string
}

export interface ParquetColumns {
  /** Every top-level column name, in file order. */
  names: string[]
  numeric: NumericColumn[]
  other: OtherColumn[]
}

const TIME_TYPES = new Set(['DATE', 'TIME_MILLIS', 'TIME_MICROS', 'TIMESTAMP_MILLIS', 'TIMESTAMP_MICROS', 'INTERVAL'])

export function parquetColumns(meta: FileMetaData): ParquetColumns {
  const schema = meta.schema
  const names: string[] = []
  const numeric: NumericColumn[] = []
  const other: OtherColumn[] = []
  let chunk = 0
  // Walks the schema tree (stored depth first): a top-level element with children is nested, and
  // every leaf under it still takes a chunk index.
  let i = 1
  const leaves = (at: number): { next: number; count: number } => {
    const e = schema[at]
    if (!e) return { next: at + 1, count: 0 }
    if (!e.num_children) return { next: at + 1, count: 1 }
    let next = at + 1
    let count = 0
    for (let c = 0; c < e.num_children; c++) {
      const sub = leaves(next)
      next = sub.next
      count += sub.count
    }
    return { next, count }
  }
  while (i < schema.length) {
    const e = schema[i]
    names.push(e.name)
    if (e.num_children) {
      const sub = leaves(i)
      other.push({ name: e.name, holds: 'nested values' })
      chunk += sub.count
      i = sub.next
      continue
    }
    const holds = notNumeric(e)
    if (holds) other.push({ name: e.name, holds })
    else {
      const decimal = e.logical_type?.type === 'DECIMAL' || e.converted_type === 'DECIMAL'
      const scale = e.logical_type?.type === 'DECIMAL' ? e.logical_type.scale : decimal ? (e.scale ?? 0) : 0
      const unsigned = (e.logical_type?.type === 'INTEGER' && !e.logical_type.isSigned) || (e.converted_type?.startsWith('UINT_') ?? false)
      numeric.push({ name: e.name, chunk, physical: e.type as Physical, scale, decimal, unsigned, typeLength: e.type_length ?? 0, optional: e.repetition_type === 'OPTIONAL' })
    }
    chunk++
    i++
  }
  return { names, numeric, other }
}

/** What a leaf holds when it is not a number, or null when it is one. */
function notNumeric(e: SchemaElement): string | null {
  if (e.repetition_type === 'REPEATED') return 'repeated values'
  const decimal = e.logical_type?.type === 'DECIMAL' || e.converted_type === 'DECIMAL'
  const logical = e.logical_type?.type
  if (logical === 'DATE' || logical === 'TIME' || logical === 'TIMESTAMP' || (e.converted_type && TIME_TYPES.has(e.converted_type))) return 'dates or times'
  switch (e.type) {
    case 'DOUBLE':
    case 'FLOAT':
      return null
    case 'INT32':
    case 'INT64':
      return null
    case 'FIXED_LEN_BYTE_ARRAY':
      return decimal && (e.type_length ?? 0) > 0 ? null : logical === 'FLOAT16' ? 'half-precision floats (not read)' : 'fixed-length bytes'
    case 'BYTE_ARRAY':
      return decimal ? null : 'text'
    case 'BOOLEAN':
      return 'booleans'
    case 'INT96':
      return 'timestamps (INT96)'
    default:
      return `values of type ${e.type}`
  }
}
