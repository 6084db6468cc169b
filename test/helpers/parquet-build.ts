// Hand-built Parquet files for tests: flat columns, pages of any encoding and any header (data
// pages v1 and v2, compressed as the test compressed them), and a footer that says whatever a test
// needs it to (the Thrift compact writer of src/main/io/parquet/write-parquet.ts), so hostile
// files are built from their recipe; and encoders of the values and levels such pages hold.
import { Thrift } from '../../src/main/io/parquet/write-parquet'

export const TYPE = { INT32: 1, INT64: 2, FLOAT: 4, DOUBLE: 5, BYTE_ARRAY: 6, FIXED_LEN_BYTE_ARRAY: 7 } as const
export const ENCODING = { PLAIN: 0, PLAIN_DICTIONARY: 2, RLE: 3, DELTA_BINARY_PACKED: 5, DELTA_LENGTH_BYTE_ARRAY: 6, DELTA_BYTE_ARRAY: 7, RLE_DICTIONARY: 8, BYTE_STREAM_SPLIT: 9 } as const
export const CODEC = { UNCOMPRESSED: 0, SNAPPY: 1, GZIP: 2, BROTLI: 4, LZ4: 5, ZSTD: 6, LZ4_RAW: 7 } as const

export interface ColumnSpec {
  name: string
  type: number
  typeLength?: number
  /** DECIMAL (converted type 5) of this scale and precision. */
  decimal?: { scale: number; precision: number }
  /** UINT_64 / UINT_32 (converted types 14 and 13). */
  unsigned?: boolean
  /** OPTIONAL (its pages carry definition levels), else REQUIRED. */
  optional?: boolean
  /** The column chunks' codec (CODEC), uncompressed when absent. */
  codec?: number
}

/** A page: its header's fields and its body as stored (compressed by the test where its codec says). */
export interface PageSpec {
  kind: 'dictionary' | 'data'
  values: number
  encoding: number
  body: Uint8Array
  /** Bytes uncompressed, when the body is compressed. */
  size?: number
  /** A data page v2: its nulls, the definition levels' bytes at the body's start, and whether its values are compressed. */
  v2?: { nulls: number; levels: number; compressed: boolean }
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
    .int(1, p.kind === 'dictionary' ? 2 : p.v2 ? 3 : 0)
    .int(2, p.size ?? p.body.length)
    .int(3, p.body.length)
  const v2 = p.v2
  if (p.kind === 'dictionary') t.struct(7, (d) => d.int(1, p.values).int(2, p.encoding))
  else if (v2) t.struct(8, (d) => d.int(1, p.values).int(2, v2.nulls).int(3, p.values).int(4, p.encoding).int(5, v2.levels).int(6, 0).bool(7, v2.compressed))
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
  unsigned?: boolean
  optional?: boolean
}

/** The footer's metadata: `schema` (root included) and the chunks each group's columns occupy. */
export function footer(schema: SchemaSpec[], columns: ColumnSpec[], groups: { rows: number; chunks: { offset: number; size: number; dictionary: boolean; encodings?: number[] }[] }[], numRows?: number, chunkValues?: number): Buffer {
  return new Thrift()
    .int(1, 1)
    .list(2, 12, schema, (t, e) => {
      if (e.type !== undefined) t.int(1, e.type)
      if (e.typeLength !== undefined) t.int(2, e.typeLength)
      if (e.children === undefined) t.int(3, e.optional ? 1 : 0)
      if (e.name !== undefined) t.string(4, e.name)
      if (e.children !== undefined) t.int(5, e.children)
      if (e.decimal) t.int(6, 5).int(7, e.decimal.scale).int(8, e.decimal.precision)
      else if (e.unsigned) t.int(6, e.type === TYPE.INT64 ? 14 : 13)
    })
    .long(3, numRows ?? groups.reduce((n, g) => n + g.rows, 0))
    .list(4, 12, groups, (t, g) => {
      t.list(1, 12, g.chunks, (cc, chunk) => {
        const c = g.chunks.indexOf(chunk)
        cc.long(2, chunk.offset).struct(3, (m) => {
          m.int(1, columns[c].type)
            .list(2, 5, chunk.encodings ?? [ENCODING.PLAIN, ENCODING.RLE, ENCODING.RLE_DICTIONARY], (l, e) => l.rawInt(e))
            .list(3, 8, [columns[c].name], (l, name) => l.rawString(name))
            .int(4, columns[c].codec ?? CODEC.UNCOMPRESSED)
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
      // The encodings its pages use, and RLE (their levels').
      const encodings = [...new Set([...pages.map((p) => p.encoding), ENCODING.RLE])]
      const chunk = { offset, size: bytes.length, dictionary: pages[0]?.kind === 'dictionary', encodings }
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

/** Definition levels of a flat optional column (1 a value, 0 a null) as runs of the hybrid encoding. */
export function definitionLevels(defined: boolean[]): Buffer {
  const runs: Buffer[] = []
  for (let i = 0; i < defined.length; ) {
    let j = i
    while (j < defined.length && defined[j] === defined[i]) j++
    runs.push(rleRun(j - i, defined[i] ? 1 : 0, 1))
    i = j
  }
  return Buffer.concat(runs)
}

/** A data page v1's body: its definition levels (length-prefixed, for an optional column) and values. */
export function pageV1Body(defined: boolean[] | undefined, values: Uint8Array): Buffer {
  if (!defined) return Buffer.from(values)
  const levels = definitionLevels(defined)
  const length = Buffer.alloc(4)
  length.writeUInt32LE(levels.length)
  return Buffer.concat([length, levels, values])
}

const uvarint = (v: bigint): number[] => {
  const out: number[] = []
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return out
}
const zigzag = (v: bigint): number[] => uvarint(v >= 0n ? v << 1n : ((-v) << 1n) - 1n)

/**
 * DELTA_BINARY_PACKED integers, as a writer does: blocks of `blockSize` deltas in `miniblocks`
 * miniblocks, each of the least bit width its residuals need, the last miniblock holding values
 * padded whole. `wrap`: deltas modulo 2^bits, as parquet-mr and Arrow compute them (64: exact
 * differences of 32-bit values, as DuckDB computes them, up to 33 bits wide).
 */
export function deltaBinaryPacked(values: bigint[], opts: { blockSize?: number; miniblocks?: number; wrap: 32 | 64 }): Buffer {
  const blockSize = opts.blockSize ?? 128
  const miniblocks = opts.miniblocks ?? 4
  const per = blockSize / miniblocks
  const out: number[] = [...uvarint(BigInt(blockSize)), ...uvarint(BigInt(miniblocks)), ...uvarint(BigInt(values.length)), ...zigzag(values[0] ?? 0n)]
  const deltas = values.slice(1).map((v, i) => BigInt.asIntN(opts.wrap, v - values[i]))
  for (let b = 0; b < deltas.length; b += blockSize) {
    const block = deltas.slice(b, b + blockSize)
    const min = block.reduce((m, d) => (d < m ? d : m))
    out.push(...zigzag(min))
    const residuals = block.map((d) => BigInt.asUintN(64, d - min))
    const widths = Array.from({ length: miniblocks }, (_, m) => residuals.slice(m * per, (m + 1) * per).reduce((w, r) => Math.max(w, r.toString(2).length - (r === 0n ? 1 : 0)), 0))
    out.push(...widths)
    for (let m = 0; m * per < residuals.length; m++) {
      const bytes = new Uint8Array((per * widths[m]) / 8)
      residuals.slice(m * per, (m + 1) * per).forEach((r, k) => {
        for (let bit = 0; bit < widths[m]; bit++) if ((r >> BigInt(bit)) & 1n) bytes[(k * widths[m] + bit) >> 3] |= 1 << ((k * widths[m] + bit) & 7)
      })
      out.push(...bytes)
    }
  }
  return Buffer.from(out)
}

/** BYTE_STREAM_SPLIT of PLAIN values `width` bytes wide: byte k of every value, then byte k + 1. */
export function byteStreamSplit(plain: Uint8Array, width: number): Buffer {
  const n = plain.length / width
  const out = Buffer.alloc(plain.length)
  for (let i = 0; i < n; i++) for (let k = 0; k < width; k++) out[k * n + i] = plain[i * width + k]
  return out
}

/** DELTA_LENGTH_BYTE_ARRAY (`prefixed` false) or DELTA_BYTE_ARRAY byte arrays. */
export function deltaByteArrays(values: Uint8Array[], prefixed: boolean): Buffer {
  const prefixes = values.map((v, i) => {
    if (!prefixed || i === 0) return 0
    let k = 0
    while (k < v.length && k < values[i - 1].length && v[k] === values[i - 1][k]) k++
    return k
  })
  const lengths = (xs: number[]) => deltaBinaryPacked(xs.map(BigInt), { wrap: 32 })
  return Buffer.concat([
    ...(prefixed ? [lengths(prefixes)] : []),
    lengths(values.map((v, i) => v.length - prefixes[i])),
    ...values.map((v, i) => v.subarray(prefixes[i])),
  ])
}
