// Parquet tables through the loader's threads (built into out/main by `npm run build`), against
// the same rows as CSV: fixtures written by DuckDB at set-up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCsv } from '../../src/main/io/csv-loader'
import { binaryTableColumns, loadTable } from '../../src/main/io/table-loader'
import { lit, sql, writeBoth } from '../helpers/duckdb'
import { failure } from '../helpers/failure'

const dir = mkdtempSync(join(tmpdir(), 'paralab-parquet-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)

const ROWS = 20_000
const QUERY = `SELECT range::DOUBLE / 7 AS x, (range * 3 - 70000)::BIGINT AS y, ((range % 1000) - 500)::DECIMAL(10,3) / 8 AS d,
  (range % 97 - 40)::INTEGER AS i, (range * 1234567 - 9e15)::DECIMAL(18,2) AS big, (range::HUGEINT * 100003 - 40000)::DECIMAL(38,4) / 3 AS wide,
  'a' || range AS s, TIMESTAMP '2020-01-01' + INTERVAL (range) SECOND AS t FROM range(${ROWS})`
const COLUMNS = ['x', 'y', 'd', 'i', 'big', 'wide']

async function same(csv: string, table: string, columns: string[], opts = {}) {
  const a = await loadCsv(csv, { columns })
  const b = await loadTable(table, { columns, threads: 2, ...opts })
  expect(b.rows).toBe(a.rows)
  for (const c of columns) {
    expect(b.columns[c].missing).toBe(a.columns[c].missing)
    expect(Array.from(b.columns[c].values)).toEqual(Array.from(a.columns[c].values))
  }
}

describe('Parquet loader', () => {
  const codecs = ['zstd', 'snappy', 'gzip', 'uncompressed']
  beforeAll(async () => {
    for (const codec of codecs) await writeBoth(QUERY, at('t.csv'), at(`t-${codec}.parquet`), `COMPRESSION ${codec}, ROW_GROUP_SIZE 6000`)
    await sql(`COPY (${QUERY}) TO ${lit(at('t-v2.parquet'))} (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2, ROW_GROUP_SIZE 8000)`)
  }, 60_000)

  it.each(codecs)('reads %s int, double and decimal columns as the CSV loader reads the same rows', async (codec) => {
    await same(at('t.csv'), at(`t-${codec}.parquet`), COLUMNS)
  })

  it('reads version 2 pages (DATA_PAGE_V2, delta and byte-stream-split encodings)', async () => {
    await same(at('t.csv'), at('t-v2.parquet'), COLUMNS)
  })

  it('is recognised by content whatever its name, and tells numeric columns from the others', async () => {
    const renamed = at('parquet-named.csv')
    writeFileSync(renamed, Buffer.from(await import('node:fs').then((fs) => fs.readFileSync(at('t-zstd.parquet')))))
    await same(at('t.csv'), renamed, ['x'])
    const cols = await binaryTableColumns(renamed)
    expect(cols).toMatchObject({ format: 'parquet', numeric: COLUMNS, other: ['s', 't'] })
  })

  describe('nulls, NaN and infinities', () => {
    beforeAll(async () => {
      const q = `SELECT CASE WHEN range % 7 = 3 THEN NULL ELSE range::DOUBLE END AS v, range::DOUBLE AS w FROM range(30000)`
      await writeBoth(q, at('n.csv'), at('n.parquet'), 'COMPRESSION snappy, ROW_GROUP_SIZE 10000')
      await sql(`COPY (SELECT CASE WHEN range = 12345 THEN 'nan'::DOUBLE ELSE range::DOUBLE END AS v, CASE WHEN range = 777 THEN '-inf'::DOUBLE ELSE 1 END AS w FROM range(20000)) TO ${lit(at('nan.parquet'))} (FORMAT parquet)`)
    })

    it('skips nulls as missing values, as the CSV loader skips empty cells', async () => {
      await same(at('n.csv'), at('n.parquet'), ['v', 'w'])
    })

    it('refuses a null where every cell must hold a number, naming its row and column', async () => {
      const e = await failure(loadTable(at('n.parquet'), { columns: ['w', 'v'], nulls: 'refuse' }))
      expect(e.message).toBe(`${at('n.parquet')} (row group 0, column "v", page 0): row 4 is null; every cell must hold a number`)
    })

    it('refuses NaN and infinities as a CSV reader does, naming the row', async () => {
      expect((await failure(loadTable(at('nan.parquet'), { columns: ['v'] }))).message).toMatch(/nan\.parquet \(row group 0, column "v", page \d+\): row 12346: NaN is not a number$/)
      expect((await failure(loadTable(at('nan.parquet'), { columns: ['w'] }))).message).toMatch(/column "w", page \d+\): row 778: -Infinity is out of range$/)
    })
  })
})
