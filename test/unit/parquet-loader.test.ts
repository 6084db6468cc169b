// Parquet tables through the loader's threads (built into out/main by `npm run build`), against
// the same rows as CSV: fixtures written by DuckDB at set-up.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCsv } from '../../src/main/io/csv-loader'
import { loadParquet } from '../../src/main/io/parquet/load-parquet'
import { writeBoth } from '../helpers/duckdb'

const dir = mkdtempSync(join(tmpdir(), 'paralab-parquet-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ROWS = 50_000
const QUERY = `SELECT range::DOUBLE / 7 AS x, (range * 3 - 70000)::BIGINT AS y, ((range % 1000) - 500)::DECIMAL(10,3) / 8 AS d,
  (range % 97 - 40)::INTEGER AS i, round(sin(range) * 100, 1)::FLOAT AS f, 'a' || range AS s FROM range(${ROWS})`
const COLUMNS = ['x', 'y', 'd', 'i']

describe('Parquet loader', () => {
  const codecs = ['zstd', 'snappy', 'gzip', 'uncompressed']
  beforeAll(async () => {
    for (const codec of codecs) await writeBoth(QUERY, join(dir, 't.csv'), join(dir, `t-${codec}.parquet`), `COMPRESSION ${codec}, ROW_GROUP_SIZE 12000`)
  })

  it.each(codecs)('reads %s columns as the CSV loader reads the same rows', async (codec) => {
    const csv = await loadCsv(join(dir, 't.csv'), { columns: COLUMNS })
    const pq = await loadParquet(join(dir, `t-${codec}.parquet`), { columns: COLUMNS, threads: 2 })
    expect(pq.rows).toBe(ROWS)
    for (const c of COLUMNS) {
      expect(pq.columns[c].values.length).toBe(ROWS)
      expect(Array.from(pq.columns[c].values)).toEqual(Array.from(csv.columns[c].values))
    }
  })
})
