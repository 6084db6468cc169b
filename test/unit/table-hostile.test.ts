// Hostile Parquet and Arrow files: each refused with a message naming the file and the place in it
// (footer, row group, column, page, message, record batch), before anything of the size a header
// announces is allocated. Valid files come from DuckDB and Polars; the damage is done here.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { footerMetadata, pageHeader } from '../../src/main/io/parquet/write-parquet'
import { loadTable } from '../../src/main/io/table-loader'
import { lit, sql } from '../helpers/duckdb'
import { failure } from '../helpers/failure'
import { lz4Block } from '../helpers/lz4-encode'
import { CODEC, dataPage, ENCODING, parquetFile, TYPE } from '../helpers/parquet-build'

const dir = mkdtempSync(join(tmpdir(), 'paralab-hostile-tables-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const write = (name: string, bytes: Uint8Array | string) => {
  writeFileSync(at(name), bytes)
  return at(name)
}
const refusal = async (path: string, columns = ['v']) => (await failure(loadTable(path, { columns, threads: 1 }))).message

/** A Parquet file of one REQUIRED double column `v` in one gzip page, whose header says what it is given. */
function parquetWithPage(name: string, body: Buffer, uncompressed: number, values: number): string {
  const header = pageHeader(uncompressed, body.length, values)
  const footer = footerMetadata([{ name: 'v', type: 'double' }], [{ rows: values, chunks: [{ offset: 4, size: header.length + body.length, raw: header.length + uncompressed }] }], 'gzip')
  const tail = Buffer.alloc(8)
  tail.writeUInt32LE(footer.length, 0)
  tail.write('PAR1', 4, 'latin1')
  return write(name, Buffer.concat([Buffer.from('PAR1'), header, body, footer, tail]))
}

let good: Buffer
let arrow: Buffer

beforeAll(async () => {
  await sql(`COPY (SELECT range::DOUBLE AS v, 'x' || range AS s FROM range(5000)) TO ${lit(at('good.parquet'))} (FORMAT parquet, COMPRESSION zstd)`)
  good = readFileSync(at('good.parquet'))
  const pl = createRequire(import.meta.url)('nodejs-polars')
  pl.DataFrame({ v: Array.from({ length: 5000 }, (_, k) => k / 3) }).writeIPC(at('good.arrow'))
  arrow = readFileSync(at('good.arrow'))
})

describe('hostile Parquet files', () => {
  it('a truncated file', async () => {
    expect(await refusal(write('cut.parquet', good.subarray(0, good.length >> 1)))).toBe(`${at('cut.parquet')} (byte ${(good.length >> 1) - 4}): does not end with "PAR1": the file is truncated or not Parquet`)
  })

  it('a wrong magic under a .parquet name', async () => {
    const bad = Buffer.from(good)
    bad.write('PAR9', 0, 'latin1')
    expect(await refusal(write('magic.parquet', bad))).toBe(`${at('magic.parquet')} (byte 0): not a Parquet file: it does not start with "PAR1"`)
    expect(await refusal(write('zeros.parquet', Buffer.alloc(100)))).toMatch(/zeros\.parquet \(byte 0\): not a Parquet file/)
  })

  it('a footer announcing 2 GB of metadata', async () => {
    const bad = Buffer.from(good)
    bad.writeUInt32LE(2 ** 31, bad.length - 8)
    expect(await refusal(write('footer.parquet', bad))).toBe(`${at('footer.parquet')} (footer): the footer announces 2147483648 bytes of metadata; the file holds only ${good.length} bytes (truncated?)`)
  })

  it('row groups whose chunks lie past the file', async () => {
    // The data cut short, the footer kept: its chunks now reach past the data.
    const length = good.readUInt32LE(good.length - 8)
    const bad = Buffer.concat([good.subarray(0, 100), good.subarray(good.length - 8 - length)])
    expect(await refusal(write('chunks.parquet', bad))).toMatch(/chunks\.parquet \(row group 0, column "v"\): the column chunk announces bytes \d+–\d+, past the file's data \(bytes 4–100\)$/)
  })

  it('a page announcing 2 GB uncompressed is refused before it is decompressed', async () => {
    const path = parquetWithPage('bomb-header.parquet', gzipSync(Buffer.alloc(8000)), 2 ** 31 - 1, 1000)
    expect(await refusal(path)).toBe(`${path} (row group 0, column "v", page 0): the page announces 2147483647 bytes uncompressed; its values take at most 9064`)
  })

  it('a compression bomb: a page expanding past what its header announces', async () => {
    const path = parquetWithPage('bomb.parquet', gzipSync(Buffer.alloc(64 * 1024 * 1024)), 8000, 1000)
    expect(await refusal(path)).toBe(`${path} (row group 0, column "v", page 0): gzip data expands past the 8000 bytes the page header announces`)
  })

  it('a page announcing more than it expands to', async () => {
    const path = parquetWithPage('short.parquet', gzipSync(Buffer.alloc(4000)), 8000, 1000)
    expect(await refusal(path)).toBe(`${path} (row group 0, column "v", page 0): gzip data expands to 4000 bytes; the page header announces 8000`)
  })

  it('a page announcing more values than its row group has rows', async () => {
    const path = parquetWithPage('values.parquet', gzipSync(Buffer.alloc(8000)), 8000, 1000)
    // The same page in a footer of 10 rows.
    const bytes = readFileSync(path)
    const body = gzipSync(Buffer.alloc(8000))
    const header = pageHeader(8000, body.length, 1000)
    const footer = footerMetadata([{ name: 'v', type: 'double' }], [{ rows: 10, chunks: [{ offset: 4, size: header.length + body.length, raw: header.length + 8000 }] }], 'gzip')
    const tail = Buffer.alloc(8)
    tail.writeUInt32LE(footer.length, 0)
    tail.write('PAR1', 4, 'latin1')
    const lying = write('rows.parquet', Buffer.concat([bytes.subarray(0, 4 + header.length + body.length), footer, tail]))
    expect(await refusal(lying)).toBe(`${lying} (row group 0, column "v", page 0): the page announces 1000 values; the row group has 10 rows left`)
  })

  it('brotli and LZ4 bombs: a page expanding past the 80 bytes its header announces, refused before more is written; LZO, named', async () => {
    // 16 MiB of zeros compressed to a few hundred bytes, in a page whose header announces 80.
    const zeros = Buffer.alloc(16 << 20)
    const file = (name: string, codec: number, body: Uint8Array) =>
      write(name, parquetFile([{ name: 'v', type: TYPE.DOUBLE, codec }], [{ rows: 10, pages: [[{ ...dataPage(10, ENCODING.PLAIN, body), size: 80 }]] }]))
    const place = '(row group 0, column "v", page 0)'
    const brotli = file('brotli-bomb.parquet', CODEC.BROTLI, brotliCompressSync(zeros))
    expect(await refusal(brotli)).toBe(`${brotli} ${place}: brotli data expands past the 80 bytes the page header announces`)
    const lz4 = file('lz4-bomb.parquet', CODEC.LZ4_RAW, lz4Block(zeros))
    expect(await refusal(lz4)).toBe(`${lz4} ${place}: LZ4 data expands past the 80 bytes announced`)
    const lzo = file('lzo.parquet', 3, Buffer.alloc(80))
    expect(await refusal(lzo)).toMatch(/lzo\.parquet \(row group 0, column "v"\): compression LZO is not supported; Paralab reads uncompressed, snappy, gzip, zstd, brotli, lz4, lz4_raw/)
  })

  it('a string column asked for by --columns', async () => {
    expect(await refusal(at('good.parquet'), ['s'])).toBe(`${at('good.parquet')}: column "s" holds text, not numbers`)
    expect(await refusal(at('good.parquet'), ['nope'])).toBe(`${at('good.parquet')}: no column "nope"; columns are: "v", "s"`)
  })
})

describe('hostile Arrow files', () => {
  it('a message length past the file', async () => {
    const bad = Buffer.from(arrow)
    // The first message after the file magic: continuation marker, then its metadata length.
    expect(bad.readUInt32LE(8)).toBe(0xffffffff)
    bad.writeInt32LE(0x7fffffff, 12)
    const path = write('length.arrow', bad)
    expect(await refusal(path)).toMatch(new RegExp(`length\\.arrow \\(message at byte 8\\): the message announces 2147483647 bytes of metadata; the file's data ends at byte \\d+$`))
  })

  it('a truncated file', async () => {
    expect(await refusal(write('cut.arrow', arrow.subarray(0, arrow.length - 100)))).toMatch(/cut\.arrow \(byte \d+\): does not end with "ARROW1": the file is truncated$/)
  })

  it('a body announced past the file', async () => {
    // A stream cut inside its record batch's body.
    const pl = createRequire(import.meta.url)('nodejs-polars')
    pl.DataFrame({ v: Array.from({ length: 5000 }, (_, k) => k / 3) }).writeIPCStream(at('good.arrows'))
    const stream = readFileSync(at('good.arrows'))
    expect(await refusal(write('body.arrows', stream.subarray(0, stream.length - 4000)))).toMatch(/body\.arrows \(message at byte \d+\): the message announces a body of \d+ bytes, past the file's data/)
  })
})
