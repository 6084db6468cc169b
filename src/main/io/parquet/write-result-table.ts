// A result table (the rows a CSV of `--out` holds) as a Parquet file that pandas, Polars, R's arrow
// and DuckDB open in one line: a column of numbers is DOUBLE, of booleans BOOLEAN, any other a UTF-8
// STRING; every column OPTIONAL, so an empty cell (null) stays null and NaN stays NaN. The schema's
// key-value metadata `paralab` holds the table's name, its note and each column's type and unit (as
// JSON). Tables are chart-sized, so the file is made in memory: one row group, a PLAIN page per column.
import type { ResultTable } from '../../../shared/workloads/definition'
import { columnUnit } from '../../../shared/workloads/column-units'
import { pageHeader, Thrift } from './write-parquet'

export type ResultColumnType = 'double' | 'boolean' | 'string'

/** What the `paralab` metadata says of each column. */
export interface ResultColumnMeta {
  name: string
  type: ResultColumnType
  unit?: string
}

const TYPE = { boolean: 0, double: 5, string: 6 } as const
const OPTIONAL = 1
const UTF8 = 0
const PLAIN = 0
const RLE = 3

/** A column's type: numbers (null among them) are doubles, booleans booleans, anything else text. */
export function resultColumnType(rows: ResultTable['rows'], c: number): ResultColumnType {
  let kind: 'number' | 'boolean' | null = null
  for (const row of rows) {
    const v = row[c]
    if (v === null || v === undefined) continue
    const k = typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string'
    if (k === 'string' || (kind !== null && kind !== k)) return 'string'
    kind = k
  }
  return kind === 'boolean' ? 'boolean' : kind === 'number' ? 'double' : 'string'
}

export function resultTableColumns(table: ResultTable): ResultColumnMeta[] {
  return table.columns.map((name, c) => {
    const unit = columnUnit(name)
    return { name, type: resultColumnType(table.rows, c), ...(unit && { unit }) }
  })
}

/** The table as the bytes of a Parquet file. */
export function resultTableParquet(table: ResultTable): Uint8Array {
  const columns = resultTableColumns(table)
  const rows = table.rows.length
  const parts: Uint8Array[] = [Buffer.from('PAR1')]
  let offset = 4
  const chunks = columns.map((col, c) => {
    const present = table.rows.map((row) => row[c] !== null && row[c] !== undefined)
    const levels = definitionLevels(present)
    const values = plainValues(col.type, table.rows.flatMap((row, r) => (present[r] ? [row[c]] : [])))
    const page = Buffer.concat([levels, values])
    const header = pageHeader(page.length, page.length, rows)
    const chunk = { offset, size: header.length + page.length }
    parts.push(header, page)
    offset += chunk.size
    return chunk
  })
  const meta = JSON.stringify({ table: table.name, ...(table.note && { note: table.note }), columns })
  const footer = new Thrift()
    .int(1, 1)
    .list(2, 12, [undefined, ...columns], (t, col) => {
      if (!col) t.string(4, 'schema').int(5, columns.length)
      else {
        t.int(1, TYPE[col.type]).int(3, OPTIONAL).string(4, col.name)
        if (col.type === 'string') t.int(6, UTF8).struct(10, (l) => l.struct(1, () => {}))
      }
    })
    .long(3, rows)
    .list(4, 12, [undefined], (t) => {
      t.list(1, 12, chunks, (cc, chunk) => {
        const c = chunks.indexOf(chunk)
        cc.long(2, chunk.offset).struct(3, (m) =>
          m
            .int(1, TYPE[columns[c].type])
            .list(2, 5, [PLAIN, RLE], (l, e) => l.rawInt(e))
            .list(3, 8, [columns[c].name], (l, name) => l.rawString(name))
            .int(4, 0)
            .long(5, rows)
            .long(6, chunk.size)
            .long(7, chunk.size)
            .long(9, chunk.offset),
        )
      })
      t.long(2, chunks.reduce((n, ch) => n + ch.size, 0)).long(3, rows)
    })
    .list(5, 12, [{ key: 'paralab', value: meta }], (t, kv) => t.string(1, kv.key).string(2, kv.value))
    .string(6, 'paralab')
    .end()
  const tail = Buffer.alloc(8)
  tail.writeUInt32LE(footer.length, 0)
  tail.write('PAR1', 4, 'latin1')
  parts.push(footer, tail)
  return Buffer.concat(parts)
}

/** Definition levels (1 present, 0 null) as RLE runs behind their 4-byte length: bit width 1, a byte a run's value. */
function definitionLevels(present: boolean[]): Buffer {
  const bytes: number[] = []
  for (let i = 0; i < present.length; ) {
    let j = i
    while (j < present.length && present[j] === present[i]) j++
    for (let header = (j - i) * 2; ; header = Math.floor(header / 128)) {
      if (header < 128) {
        bytes.push(header)
        break
      }
      bytes.push((header % 128) | 0x80)
    }
    bytes.push(present[i] ? 1 : 0)
    i = j
  }
  const out = Buffer.alloc(4 + bytes.length)
  out.writeUInt32LE(bytes.length, 0)
  Buffer.from(bytes).copy(out, 4)
  return out
}

/** The non-null values, PLAIN-encoded: doubles little-endian, booleans a bit each, text length-prefixed UTF-8. */
function plainValues(type: ResultColumnType, values: unknown[]): Buffer {
  if (type === 'double') {
    const out = Buffer.alloc(8 * values.length)
    values.forEach((v, i) => out.writeDoubleLE(v as number, 8 * i))
    return out
  }
  if (type === 'boolean') {
    const out = Buffer.alloc(Math.ceil(values.length / 8))
    values.forEach((v, i) => {
      if (v) out[i >> 3] |= 1 << (i & 7)
    })
    return out
  }
  return Buffer.concat(
    values.map((v) => {
      const text = Buffer.from(String(v), 'utf8')
      const len = Buffer.alloc(4)
      len.writeUInt32LE(text.length, 0)
      return Buffer.concat([len, text])
    }),
  )
}
