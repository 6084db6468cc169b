// Hand-built Parquet files for tests: flat columns, uncompressed pages of any encoding and any
// header, and a footer that says whatever a test needs it to (the Thrift compact writer of
// src/main/io/parquet/write-parquet.ts), so hostile files are built from their recipe.
import { Thrift } from '../../src/main/io/parquet/write-parquet'

export const TYPE = { INT32: 1, INT64: 2, DOUBLE: 5, FIXED_LEN_BYTE_ARRAY: 7 } as const
export const ENCODING = { PLAIN: 0, PLAIN_DICTIONARY: 2, RLE: 3, RLE_DICTIONARY: 8 } as const

export interface ColumnSpec {
  name: string
  type: number
  typeLength?: number
  /** DECIMAL (converted type 5) of this scale and precision. */
  decimal?: { scale: number; precision: number }
}

/** A page: its header's fields and its body (stored uncompressed). */
export interface PageSpec {
  kind: 'dictionary' | 'data'
  values: number
  encoding: number
  body: Uint8Array
}

export interface GroupSpec {
  rows: number
  /** Per column, its pages in order. */
  pages: PageSpec[][]
}

export const dictionaryPage = (values: number, body: Uint8Array): PageSpec => ({ kind: 'dictionary', values, encoding: ENCODING.PLAIN_DICTIONARY, body })
export const dataPage = (values: number, encoding: number, body: Uint8Array): PageSpec => ({ kind: 'data', values, encoding, body })

export function pageBytes(p: PageSpec): Buffer {
  const t = new Thrift()
    .int(1, p.kind === 'dictionary' ? 2 : 0)
    .int(2, p.body.length)
    .int(3, p.body.length)
  if (p.kind === 'dictionary') t.struct(7, (d) => d.int(1, p.values).int(2, p.encoding))
  else t.struct(5, (d) => d.int(1, p.values).int(2, p.encoding).int(3, ENCODING.RLE).int(4, ENCODING.RLE))
  return Buffer.concat([t.end(), p.body])
}

/** A schema element as the footer lists it. */
export interface SchemaSpec {
  /** Left out of the footer when undefined. */
  name: string | undefined
  type?: number
  typeLength?: number
  children?: number
  decimal?: { scale: number; precision: number }
}

/** The footer's metadata: `schema` (root included) and the chunks each group's columns occupy. */
export function footer(schema: SchemaSpec[], columns: ColumnSpec[], groups: { rows: number; chunks: { offset: number; size: number; dictionary: boolean }[] }[], numRows?: number, chunkValues?: number): Buffer {
  return new Thrift()
    .int(1, 1)
    .list(2, 12, schema, (t, e) => {
      if (e.type !== undefined) t.int(1, e.type)
      if (e.typeLength !== undefined) t.int(2, e.typeLength)
      if (e.children === undefined) t.int(3, 0)
      if (e.name !== undefined) t.string(4, e.name)
      if (e.children !== undefined) t.int(5, e.children)
      if (e.decimal) t.int(6, 5).int(7, e.decimal.scale).int(8, e.decimal.precision)
    })
    .long(3, numRows ?? groups.reduce((n, g) => n + g.rows, 0))
    .list(4, 12, groups, (t, g) => {
      t.list(1, 12, g.chunks, (cc, chunk) => {
        const c = g.chunks.indexOf(chunk)
        cc.long(2, chunk.offset).struct(3, (m) => {
          m.int(1, columns[c].type)
            .list(2, 5, [ENCODING.PLAIN, ENCODING.RLE, ENCODING.RLE_DICTIONARY], (l, e) => l.rawInt(e))
            .list(3, 8, [columns[c].name], (l, name) => l.rawString(name))
            .int(4, 0)
            .long(5, chunkValues ?? g.rows)
            .long(6, chunk.size)
            .long(7, chunk.size)
            .long(9, chunk.offset)
          if (chunk.dictionary) m.long(11, chunk.offset)
        })
      })
      t.long(2, g.chunks.reduce((n, ch) => n + ch.size, 0)).long(3, g.rows)
    })
    .end()
}

/** A whole file: magic, every group's chunks, the footer (its schema given, or the flat one of `columns`), length and magic. */
export function parquetFile(columns: ColumnSpec[], groups: GroupSpec[], opts: { schema?: SchemaSpec[]; numRows?: number; chunkValues?: number } = {}): Buffer {
  const parts: Buffer[] = [Buffer.from('PAR1')]
  let offset = 4
  const metas = groups.map((g) => ({
    rows: g.rows,
    chunks: g.pages.map((pages) => {
      const bytes = Buffer.concat(pages.map(pageBytes))
      parts.push(bytes)
      const chunk = { offset, size: bytes.length, dictionary: pages[0]?.kind === 'dictionary' }
      offset += bytes.length
      return chunk
    }),
  }))
  const schema = opts.schema ?? [{ name: 'schema', children: columns.length }, ...columns]
  const meta = footer(schema, columns, metas, opts.numRows, opts.chunkValues)
  const tail = Buffer.alloc(8)
  tail.writeUInt32LE(meta.length, 0)
  tail.write('PAR1', 4, 'latin1')
  return Buffer.concat([...parts, meta, tail])
}

/** An RLE run of the hybrid encoding: `count` copies of `value`, stored in `width` bits. */
export function rleRun(count: number, value: number, width: number): Buffer {
  const header: number[] = []
  let h = count * 2
  while (h >= 0x80) {
    header.push((h & 0x7f) | 0x80)
    h = Math.floor(h / 128)
  }
  header.push(h)
  const bytes = Buffer.alloc((width + 7) >> 3)
  for (let k = 0; k < bytes.length; k++) bytes[k] = (value >> (8 * k)) & 0xff
  return Buffer.concat([Buffer.from(header), bytes])
}

/** Bit-packed groups of the hybrid encoding: `values` (padded to a multiple of 8) in `width` bits. */
export function bitPacked(values: number[], width: number): Buffer {
  const groups = Math.ceil(values.length / 8)
  const out = Buffer.alloc(1 + groups * width)
  out[0] = (groups << 1) | 1
  let bit = 0
  for (const v of values) {
    for (let b = 0; b < width; b++, bit++) if ((v >> b) & 1) out[1 + (bit >> 3)] |= 1 << (bit & 7)
  }
  return out
}
