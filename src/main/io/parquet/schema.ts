// Which columns of a Parquet file hold numbers, and how each is stored: the loader reads flat
// columns of INT32, INT64, FLOAT, DOUBLE and DECIMAL (on INT32, INT64, FIXED_LEN_BYTE_ARRAY or
// BYTE_ARRAY); text, dates, times, booleans and nested columns are not numbers.
import type { FileMetaData, SchemaElement } from 'hyparquet'
import { refuseDuplicateNames } from '../column-names'
import { quoteText } from '../quote'
import { parquetError } from './footer'

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

/** Deepest schema nesting read (a table's schema is a few levels deep); deeper is refused by name. */
export const MAX_SCHEMA_DEPTH = 100

/** Widest decimal read, in bytes (a 32-byte integer has 77 digits, past what a double tells apart). */
export const MAX_DECIMAL_BYTES = 32

/**
 * The top-level columns of a footer's schema, checked as one pass over its flat list (stored depth
 * first): every element's children must lie within the list and nesting stays under
 * MAX_SCHEMA_DEPTH, so the walk is as long as the list (itself no longer than the footer's bytes)
 * whatever counts the file states. Repeated names are refused.
 */
export function parquetColumns(path: string, meta: FileMetaData): ParquetColumns {
  const schema = meta.schema
  const refuse = (at: number, message: string) => parquetError(path, `footer, schema element ${at}`, message)
  if (!schema?.length) throw parquetError(path, 'footer', 'the schema lists no elements')
  const names: string[] = []
  const numeric: NumericColumn[] = []
  const other: OtherColumn[] = []
  // Children still to come at each open level; [0] is the root's.
  const open = [childCount(schema, 0, refuse)]
  let chunk = 0
  for (let i = 1; i < schema.length; i++) {
    while (open.length > 0 && open[open.length - 1] === 0) open.pop()
    if (open.length === 0) throw refuse(i, `the root's ${schema[0].num_children} columns and their children end before it; the schema lists ${schema.length} elements`)
    const e = schema[i]
    if (typeof e.name !== 'string') throw refuse(i, 'the element has no name')
    const children = childCount(schema, i, refuse)
    open[open.length - 1]--
    if (open.length === 1) {
      // A top-level column: a leaf is read or named as not numbers; a group is nested values.
      names.push(e.name)
      if (children > 0) other.push({ name: e.name, holds: 'nested values' })
      else {
        const holds = notNumeric(e)
        if (holds) other.push({ name: e.name, holds })
        else numeric.push(numericColumn(e, chunk))
      }
    }
    if (children > 0) {
      open.push(children)
      if (open.length > MAX_SCHEMA_DEPTH) throw refuse(i, `the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`)
    } else chunk++
  }
  while (open.length > 0 && open[open.length - 1] === 0) open.pop()
  if (open.length > 0) throw refuse(schema.length - 1, `the schema ends with ${open[open.length - 1]} children of an element still to come`)
  refuseDuplicateNames(path, names, ' (footer, schema)')
  return { names, numeric, other }
}

/** An element's num_children, checked to fit in the elements after it. */
function childCount(schema: SchemaElement[], at: number, refuse: (at: number, m: string) => Error): number {
  const n = schema[at].num_children ?? 0
  if (!Number.isInteger(n) || n < 0 || n > schema.length - 1 - at)
    throw refuse(at, `${quoteText(schema[at].name ?? '')} announces ${n} children; the schema has ${schema.length - 1 - at} elements after it`)
  return n
}

function numericColumn(e: SchemaElement, chunk: number): NumericColumn {
  const decimal = e.logical_type?.type === 'DECIMAL' || e.converted_type === 'DECIMAL'
  const scale = e.logical_type?.type === 'DECIMAL' ? e.logical_type.scale : decimal ? (e.scale ?? 0) : 0
  const unsigned = (e.logical_type?.type === 'INTEGER' && !e.logical_type.isSigned) || (e.converted_type?.startsWith('UINT_') ?? false)
  return { name: e.name, chunk, physical: e.type as Physical, scale, decimal, unsigned, typeLength: e.type_length ?? 0, optional: e.repetition_type === 'OPTIONAL' }
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
      if (decimal && (e.type_length ?? 0) > MAX_DECIMAL_BYTES) return `decimals of ${e.type_length} bytes (at most ${MAX_DECIMAL_BYTES} are read)`
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
