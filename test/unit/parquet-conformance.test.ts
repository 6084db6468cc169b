// Every Parquet file of apache/parquet-testing kept in ../shared/corpora (data/ and bad_data/) read
// through the loader (loadTable, as stats and correlation read it) and by DuckDB at test time: each
// numeric column equal to DuckDB's non-null values in order, bit for bit (integers and decimals
// compared with the double their exact text reads as, floats with DuckDB's double), with its
// nulls counted as missing; or the file or column refused naming the file and the feature. The
// refused ones are listed with their reasons, and that list is docs/formats.md's.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { binaryTableColumns, loadTable } from '../../src/main/io/table-loader'
import { duckdb, duckdbColumns, lit } from '../helpers/duckdb'
import { bitPacked, dataPage, dictionaryPage, ENCODING, parquetFile, rleRun, TYPE, type ColumnSpec } from '../helpers/parquet-build'

const ROOT = '../shared/corpora/parquet/apache+parquet-testing'
const FILES = ['data', 'bad_data'].flatMap((d) =>
  readdirSync(join(ROOT, d))
    .filter((f) => f.endsWith('.parquet'))
    .sort()
    .map((f) => `${d}/${f}`),
)

/** DuckDB's reading of a column: its non-null values as doubles (as their exact text reads, for integers and decimals), and its nulls. */
const reference = async (path: string, column: string) => (await duckdbColumns(path, [column]))[column]

/** Files in Parquet's LZ4 codec, which DuckDB does not read, and the file of the same table in LZ4_RAW that DuckDB reads for them. */
const SAME_TABLE: Record<string, string> = { 'data/non_hadoop_lz4_compressed.parquet': 'data/lz4_raw_compressed.parquet' }

/** The refusal's text after the file's name. */
const reason = (path: string, e: unknown): string => {
  if (!(e instanceof ApiError)) throw e
  expect(e.message, 'a refusal names the file').toContain(path)
  return e.message.slice(e.message.indexOf(path) + path.length).replace(/^:?\s*/, '')
}

type Outcome = { equal: string[]; notNumbers: string[] } | { refused: string }

/** Reads a file's numeric columns both ways; a column refused is reported with its reason. */
async function compare(file: string): Promise<{ outcome: Outcome; duckdb?: string }> {
  const path = join(ROOT, file)
  let duckFailure: string | undefined
  try {
    // The numbers, not a GeoParquet reading of the file's geometry column.
    await (await duckdb()).run('SET enable_geoparquet_conversion = false')
    await (await duckdb()).runAndReadAll(`SELECT count(*) FROM read_parquet(${lit(path)})`)
  } catch (e) {
    duckFailure = (e as Error).message.split('\n')[0]
  }
  let cols: Awaited<ReturnType<typeof binaryTableColumns>>
  try {
    cols = await binaryTableColumns(path)
  } catch (e) {
    return { outcome: { refused: reason(path, e) }, duckdb: duckFailure }
  }
  expect(cols?.format).toBe('parquet')
  const notNumbers = cols!.other
  const columns = cols!.numeric
  if (columns.length === 0) return { outcome: { equal: [], notNumbers }, duckdb: duckFailure }
  let table
  try {
    table = await loadTable(path, { columns, threads: 1 })
  } catch (e) {
    return { outcome: { refused: reason(path, e) }, duckdb: duckFailure }
  }
  // The loader read numbers: DuckDB must read the same ones.
  expect(duckFailure, `${file}: read here, refused by DuckDB`).toBeUndefined()
  for (const column of columns) {
    const ref = await reference(SAME_TABLE[file] ? join(ROOT, SAME_TABLE[file]) : path, column)
    const got = table.columns[column]
    expect(got.missing, `${file} ${column}: nulls`).toBe(ref.nulls)
    expect(Array.from(got.values), `${file} ${column}: values`).toEqual(ref.values)
  }
  return { outcome: { equal: columns, notNumbers }, duckdb: duckFailure }
}

/** Files refused, with the feature each refusal names (docs/formats.md lists the same). */
const REFUSED: Record<string, RegExp> = {
  'bad_data/ARROW-GH-41321.parquet': /column "int64", page 1\): the page holds fewer values than its header announces/,
  'data/column_chunk_key_value_metadata.parquet': /no data rows/,
  'data/floating_orders_nan_count.parquet': /row 11: NaN is not a number/,
}

describe('Parquet conformance files (apache/parquet-testing) against DuckDB', () => {
  it('reads every file equal to DuckDB or refuses it naming the feature', async () => {
    expect(FILES.length).toBeGreaterThan(30)
    const refused: Record<string, string> = {}
    const lines: string[] = []
    for (const file of FILES) {
      const { outcome, duckdb: duck } = await compare(file)
      const note = duck ? ` (DuckDB: ${duck})` : ''
      if ('refused' in outcome) {
        refused[file] = outcome.refused
        lines.push(`refused  ${file}: ${outcome.refused}${note}`)
      } else lines.push(`equal    ${file}: ${outcome.equal.length ? outcome.equal.join(', ') : 'no numeric columns'}${outcome.notNumbers.length ? `; not numbers: ${outcome.notNumbers.join(', ')}` : ''}${note}`)
    }
    console.log(lines.join('\n'))
    expect(Object.keys(refused).sort()).toEqual(Object.keys(REFUSED).sort())
    for (const [file, pattern] of Object.entries(REFUSED)) expect(refused[file]).toMatch(pattern)
  }, 300_000)

  it('reads a dictionary-encoded INT64 column of one entry (bit width 0) as DuckDB does: 1 000 zeros', async () => {
    const path = join(ROOT, 'data/rle-dict-uncompressed-corrupt-checksum.parquet')
    const t = await loadTable(path, { columns: ['long_field'], threads: 1 })
    expect(Array.from(t.columns.long_field.values)).toEqual(new Array(1000).fill(0))
    expect((await reference(path, 'long_field')).values).toEqual(new Array(1000).fill(0))
  }, 60_000)

  it('reads a version 2 data page of nulls with no value bytes, as DuckDB does', async () => {
    const path = join(ROOT, 'data/datapage_v2_empty_datapage.snappy.parquet')
    const t = await loadTable(path, { columns: ['value'], threads: 1 })
    expect(t.columns.value).toMatchObject({ missing: 1, values: new Float64Array(0) })
    expect(await reference(path, 'value')).toEqual({ values: [], nulls: 1 })
  }, 60_000)

  it('reads dictionary pages of many small pages, some of bit width 0, for every physical type as DuckDB does', async () => {
    // As parquet-mr writes them: a page flushed while the dictionary held one entry stores its
    // indexes in 0 bits; later pages in 1. Half the values are 2009, half 2010.
    const dir = mkdtempSync(join(tmpdir(), 'paralab-parquet-pages-'))
    try {
      const columns: ColumnSpec[] = [
        { name: 'i32', type: TYPE.INT32 },
        { name: 'i64', type: TYPE.INT64 },
        { name: 'f64', type: TYPE.DOUBLE },
        { name: 'dec', type: TYPE.FIXED_LEN_BYTE_ARRAY, typeLength: 4, decimal: { scale: 1, precision: 8 } },
      ]
      const entry = (c: ColumnSpec, v: number): Buffer => {
        const b = Buffer.alloc(c.type === TYPE.INT32 || c.type === TYPE.FIXED_LEN_BYTE_ARRAY ? 4 : 8)
        if (c.type === TYPE.INT32) b.writeInt32LE(v)
        else if (c.type === TYPE.INT64) b.writeBigInt64LE(BigInt(v))
        else if (c.type === TYPE.DOUBLE) b.writeDoubleLE(v)
        else b.writeInt32BE(v * 10)
        return b
      }
      const pages = (c: ColumnSpec) => [
        dictionaryPage(2, Buffer.concat([entry(c, 2009), entry(c, 2010)])),
        ...Array.from({ length: 6 }, (_, k) =>
          k % 2 === 0
            ? dataPage(8, ENCODING.PLAIN_DICTIONARY, Buffer.concat([Buffer.from([0]), rleRun(3, 0, 0), rleRun(5, 0, 0)]))
            : dataPage(8, ENCODING.PLAIN_DICTIONARY, Buffer.concat([Buffer.from([1]), bitPacked([1, 1, 1, 1, 1, 1, 1, 1], 1)])),
        ),
      ]
      const path = join(dir, 'tiny-pages.parquet')
      writeFileSync(path, parquetFile(columns, [{ rows: 48, pages: columns.map(pages) }]))
      const t = await loadTable(path, { columns: columns.map((c) => c.name), threads: 1 })
      for (const c of columns) {
        const values = Array.from(t.columns[c.name].values)
        expect(values, c.name).toEqual((await reference(path, c.name)).values)
        const sorted = [...values].sort((a, b) => a - b)
        expect((sorted[23] + sorted[24]) / 2, `${c.name}: median`).toBe(2009.5)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
