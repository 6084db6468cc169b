// Parquet files of what the writers at hand do not write but other writers do (parquet-mr,
// Arrow C++, arrow-rs): data pages v2, compressed or not, in every codec Node can make; many small
// pages of DELTA_BINARY_PACKED integers whose deltas wrap, or are 33 bits wide as DuckDB makes
// them; BYTE_STREAM_SPLIT of integers, floats and fixed-length decimals; DELTA_BYTE_ARRAY and
// DELTA_LENGTH_BYTE_ARRAY decimals — built page by page (parquet-build.ts). The reference is the
// values built (decimals as the double their exact text reads as), checked against DuckDB's reading
// of every column DuckDB reads (not Parquet's LZ4 codec, BYTE_STREAM_SPLIT of other than floats, nor
// DELTA_LENGTH_BYTE_ARRAY of decimals).
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { snappyCompress } from 'hysnappy'
import { lz4Block } from './lz4-encode'
import {
  byteStreamSplit,
  CODEC,
  dataPage,
  deltaBinaryPacked,
  deltaByteArrays,
  definitionLevels,
  ENCODING,
  pageV1Body,
  parquetFile,
  TYPE,
  type ColumnSpec,
  type PageSpec,
} from './parquet-build'
import { duckdbColumns, type ColumnReference } from './duckdb'
import { sameDoubles } from './same-doubles'
import type { WrittenTable } from './table-writers'

/** A column's values, a null as null; stored as `encode` encodes the non-null ones of a page. */
interface ColumnValues {
  spec: ColumnSpec
  values: (bigint | number | null)[]
  encoding: number
  encode: (values: (bigint | number)[]) => Uint8Array
  /** Rows of each page, in order (their sum: the column's rows). */
  pages: number[]
}

/** Deterministic numbers of every size: a linear congruential sequence. */
function sequence(seed: number): () => bigint {
  let x = BigInt(seed)
  return () => (x = (x * 6364136223846793005n + 1442695040888963407n) & (2n ** 64n - 1n))
}

/** 64-bit integers with the extremes, 2^53 + 1, runs of one value and jumps of every width. */
function int64s(n: number, seed: number, unsigned = false): bigint[] {
  const next = sequence(seed)
  const ends = unsigned ? [0n, 2n ** 64n - 1n, 2n ** 63n, 2n ** 53n + 1n] : [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n]
  return Array.from({ length: n }, (_, i) => {
    const r = next()
    if (i % 17 === 0) return ends[(i / 17) % 4]
    if (i % 5 === 1) return 42n
    const shift = BigInt(i % 64)
    const v = r >> shift
    return unsigned ? v : BigInt.asIntN(64, v) >> (shift === 0n ? 0n : 1n)
  })
}

const int32s = (n: number, seed: number) => int64s(n, seed).map((v, i) => (i % 17 === 0 ? [-(2n ** 31n), 2n ** 31n - 1n][i % 2] : BigInt.asIntN(32, v)))

function plain(type: number, values: (bigint | number)[], width = 0): Uint8Array {
  const size = type === TYPE.INT32 || type === TYPE.FLOAT ? 4 : type === TYPE.FIXED_LEN_BYTE_ARRAY ? width : 8
  const b = Buffer.alloc(values.length * size)
  values.forEach((v, i) => {
    if (type === TYPE.INT32) b.writeInt32LE(Number(v), i * 4)
    else if (type === TYPE.INT64) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v)), i * 8)
    else if (type === TYPE.FLOAT) b.writeFloatLE(Number(v), i * 4)
    else if (type === TYPE.DOUBLE) b.writeDoubleLE(Number(v), i * 8)
    else b.set(twosComplement(BigInt(v), width), i * width)
  })
  return b
}

/** A big-endian two's-complement integer in `width` bytes (the least that hold it when width is 0). */
function twosComplement(v: bigint, width: number): Uint8Array {
  let w = width
  if (w === 0) for (w = 1; v < -(2n ** BigInt(8 * w - 1)) || v >= 2n ** BigInt(8 * w - 1); w++);
  const out = new Uint8Array(w)
  let x = BigInt.asUintN(8 * w, v)
  for (let k = w - 1; k >= 0; k--, x >>= 8n) out[k] = Number(x & 0xffn)
  return out
}

const withNulls = <T>(values: T[], every: number): (T | null)[] => values.map((v, i) => (i % every === 3 ? null : v))

/** Compresses a page's values as the chunk's codec says (LZ4: Hadoop's framing, of two blocks). */
function compress(codec: number, data: Uint8Array): Uint8Array {
  switch (codec) {
    case CODEC.SNAPPY:
      return snappyCompress(data)
    case CODEC.GZIP:
      return gzipSync(data)
    case CODEC.BROTLI:
      return brotliCompressSync(data)
    case CODEC.LZ4_RAW:
      return lz4Block(data)
    case CODEC.LZ4: {
      const half = data.length >> 1
      return Buffer.concat(
        [data.subarray(0, half), data.subarray(half)].map((piece) => {
          const block = lz4Block(piece)
          const sizes = Buffer.alloc(8)
          sizes.writeUInt32BE(piece.length, 0)
          sizes.writeUInt32BE(block.length, 4)
          return Buffer.concat([sizes, block])
        }),
      )
    }
    default:
      return data
  }
}

/** A column's pages: v1, or v2 with every other page's values stored uncompressed. */
function pages(c: ColumnValues, v2: boolean): PageSpec[] {
  const out: PageSpec[] = []
  let at = 0
  c.pages.forEach((rows, k) => {
    const slice = c.values.slice(at, at + rows)
    at += rows
    const present = slice.filter((v): v is bigint | number => v !== null)
    const values = c.encode(present)
    const defined = c.spec.optional ? slice.map((v) => v !== null) : undefined
    const codec = c.spec.codec ?? CODEC.UNCOMPRESSED
    if (!v2) {
      const body = pageV1Body(defined, values)
      const stored = compress(codec, body)
      out.push({ ...dataPage(rows, c.encoding, stored), size: body.length })
      return
    }
    const levels = defined ? definitionLevels(defined) : Buffer.alloc(0)
    const compressed = k % 2 === 0
    const stored = compressed ? compress(codec, values) : values
    out.push({ ...dataPage(rows, c.encoding, Buffer.concat([levels, stored])), size: levels.length + values.length, v2: { nulls: slice.length - present.length, levels: levels.length, compressed } })
  })
  return out
}

/** The values built, as a reader must give them. */
function built(c: ColumnValues): ColumnReference {
  const present = c.values.filter((v) => v !== null)
  const scale = c.spec.decimal?.scale ?? 0
  return { values: present.map((v) => (typeof v === 'number' ? v : scale ? Number(`${v}e-${scale}`) : Number(v))), nulls: c.values.length - present.length }
}

/** Whether DuckDB reads a column so stored. */
const duckdbReads = (c: ColumnValues) =>
  c.spec.codec !== CODEC.LZ4 && c.encoding !== ENCODING.DELTA_LENGTH_BYTE_ARRAY && (c.encoding !== ENCODING.BYTE_STREAM_SPLIT || c.spec.type === TYPE.FLOAT || c.spec.type === TYPE.DOUBLE)

function write(dir: string, name: string, columns: ColumnValues[], v2: boolean): WrittenTable {
  const path = join(dir, `built-${name}.parquet`)
  const rows = columns[0].values.length
  writeFileSync(path, parquetFile(columns.map((c) => c.spec), [{ rows, pages: columns.map((c) => pages(c, v2)) }]))
  const reference = async () => {
    const want = Object.fromEntries(columns.map((c) => [c.spec.name, built(c)]))
    const checked = columns.filter(duckdbReads).map((c) => c.spec.name)
    const duck = checked.length ? await duckdbColumns(path, checked) : {}
    for (const col of checked) {
      const differs = duck[col].nulls !== want[col].nulls ? `${duck[col].nulls} nulls` : sameDoubles(duck[col].values, want[col].values)
      if (differs) throw new Error(`${path}: DuckDB reads column ${col} otherwise than it was built: ${differs}`)
    }
    return want
  }
  return { name: `built page by page: ${name}`, path, reference }
}

const delta = (wrap: 32 | 64, blockSize?: number, miniblocks?: number) => (values: (bigint | number)[]) => deltaBinaryPacked(values.map(BigInt), { wrap, blockSize, miniblocks })

export function builtTables(dir: string): WrittenTable[] {
  const files: WrittenTable[] = []
  // Data pages v2 in each codec: pages of 1 value, of nulls only, across delta blocks.
  const v2Pages = [1, 3, 129, 300, 5, 700]
  const n = v2Pages.reduce((a, b) => a + b, 0)
  const nullPage = (values: (bigint | number | null)[]) => values.map((v, i) => (i >= 1 && i < 4 ? null : v))
  for (const [name, codec] of Object.entries(CODEC).filter(([name]) => name !== 'ZSTD'))
    files.push(
      write(
        dir,
        `v2-${name.toLowerCase()}`,
        [
          { spec: { name: 'i64', type: TYPE.INT64, optional: true, codec }, values: nullPage(withNulls(int64s(n, 1), 7)), encoding: ENCODING.DELTA_BINARY_PACKED, encode: delta(64), pages: v2Pages },
          { spec: { name: 'f64', type: TYPE.DOUBLE, optional: true, codec }, values: nullPage(withNulls(int64s(n, 2).map((v) => Number(v) / 3), 5)), encoding: ENCODING.PLAIN, encode: (v) => plain(TYPE.DOUBLE, v), pages: v2Pages },
          { spec: { name: 'i32', type: TYPE.INT32, codec }, values: int32s(n, 3), encoding: ENCODING.DELTA_BINARY_PACKED, encode: delta(64), pages: v2Pages },
        ],
        true,
      ),
    )
  // Deltas on many small pages, in blocks of every shape the format allows.
  const m = 1300
  files.push(
    write(
      dir,
      'delta-pages',
      [
        { spec: { name: 'i32_wrapping', type: TYPE.INT32 }, values: int32s(m, 4), encoding: ENCODING.DELTA_BINARY_PACKED, encode: delta(32), pages: [1000, 1, 299] },
        { spec: { name: 'i32_wide', type: TYPE.INT32, optional: true }, values: withNulls(int32s(m, 5), 9), encoding: ENCODING.DELTA_BINARY_PACKED, encode: delta(64, 256, 8), pages: [64, 200, 513, 523] },
        { spec: { name: 'i64', type: TYPE.INT64, optional: true }, values: withNulls(int64s(m, 6), 4), encoding: ENCODING.DELTA_BINARY_PACKED, encode: delta(64, 128, 1), pages: [7, 129, 1164] },
        { spec: { name: 'u64', type: TYPE.INT64, unsigned: true }, values: int64s(m, 7, true), encoding: ENCODING.DELTA_BINARY_PACKED, encode: delta(64, 512, 4), pages: [650, 650] },
        { spec: { name: 'd18', type: TYPE.INT64, decimal: { scale: 4, precision: 18 } }, values: int64s(m, 8).map((v) => v % 10n ** 18n), encoding: ENCODING.DELTA_BINARY_PACKED, encode: delta(64), pages: Array(13).fill(100) },
      ],
      false,
    ),
  )
  // BYTE_STREAM_SPLIT of every fixed-width type.
  const k = 900
  const bss = (type: number, width = 0) => (v: (bigint | number)[]) => byteStreamSplit(plain(type, v, width), type === TYPE.INT32 || type === TYPE.FLOAT ? 4 : type === TYPE.FIXED_LEN_BYTE_ARRAY ? width : 8)
  const floats = int64s(k, 9).map((v, i) => [-0, Number.MAX_VALUE, Number.MIN_VALUE, Number(v) / 7][i % 4])
  const d38 = int64s(k, 10).map((v, i) => (i % 13 === 0 ? 10n ** 38n - 1n : i % 13 === 1 ? 1n - 10n ** 38n : v * 98765432109876543n))
  const splits = [400, 1, 499]
  files.push(
    write(
      dir,
      'byte-stream-split',
      [
        { spec: { name: 'i32', type: TYPE.INT32, optional: true }, values: withNulls(int32s(k, 11), 6), encoding: ENCODING.BYTE_STREAM_SPLIT, encode: bss(TYPE.INT32), pages: splits },
        { spec: { name: 'i64', type: TYPE.INT64 }, values: int64s(k, 12), encoding: ENCODING.BYTE_STREAM_SPLIT, encode: bss(TYPE.INT64), pages: splits },
        { spec: { name: 'f32', type: TYPE.FLOAT }, values: floats.map((v, i) => Math.fround([-0, 3.4028234663852886e38, 1.401298464324817e-45, v][i % 4])), encoding: ENCODING.BYTE_STREAM_SPLIT, encode: bss(TYPE.FLOAT), pages: splits },
        { spec: { name: 'f64', type: TYPE.DOUBLE, optional: true }, values: withNulls(floats, 8), encoding: ENCODING.BYTE_STREAM_SPLIT, encode: bss(TYPE.DOUBLE), pages: splits },
        { spec: { name: 'd38', type: TYPE.FIXED_LEN_BYTE_ARRAY, typeLength: 16, decimal: { scale: 10, precision: 38 } }, values: d38, encoding: ENCODING.BYTE_STREAM_SPLIT, encode: bss(TYPE.FIXED_LEN_BYTE_ARRAY, 16), pages: splits },
        { spec: { name: 'd9', type: TYPE.FIXED_LEN_BYTE_ARRAY, typeLength: 4, decimal: { scale: 2, precision: 9 } }, values: int32s(k, 13).map((v) => v % 999999999n), encoding: ENCODING.BYTE_STREAM_SPLIT, encode: bss(TYPE.FIXED_LEN_BYTE_ARRAY, 4), pages: splits },
      ],
      false,
    ),
  )
  // Decimals as delta-encoded byte arrays (parquet-mr's v2 writer).
  const arrays = (width: number, prefixed: boolean) => (v: (bigint | number)[]) => deltaByteArrays(v.map((x) => twosComplement(BigInt(x), width)), prefixed)
  const d30 = d38.map((v, i) => (i % 13 === 0 ? 10n ** 30n - 1n : v % 10n ** 30n))
  const near = d38.map((v, i) => 10n ** 37n + (v % 1000n) * (i % 3 === 0 ? -1n : 1n))
  files.push(
    write(
      dir,
      'delta-byte-arrays',
      [
        { spec: { name: 'flba_delta', type: TYPE.FIXED_LEN_BYTE_ARRAY, typeLength: 16, decimal: { scale: 10, precision: 38 }, optional: true }, values: withNulls(near, 5), encoding: ENCODING.DELTA_BYTE_ARRAY, encode: arrays(16, true), pages: splits },
        { spec: { name: 'bytes_length', type: TYPE.BYTE_ARRAY, decimal: { scale: 5, precision: 30 } }, values: d30, encoding: ENCODING.DELTA_LENGTH_BYTE_ARRAY, encode: arrays(0, false), pages: splits },
        { spec: { name: 'bytes_delta', type: TYPE.BYTE_ARRAY, decimal: { scale: 5, precision: 30 }, optional: true }, values: withNulls(d30, 7), encoding: ENCODING.DELTA_BYTE_ARRAY, encode: arrays(0, true), pages: splits },
      ],
      false,
    ),
  )
  return files
}
