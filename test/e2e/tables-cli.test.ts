// `paralab stats` and `paralab correlation` on Parquet and Arrow tables give the CSV run's results:
// tables written by `paralab generate` (acc, walks) and by DuckDB and Polars from the same CSV.
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorLines, jsonOf, paralab } from './paralab'
import { lit, sql } from '../helpers/duckdb'

const dir = mkdtempSync(join(tmpdir(), 'paralab-tables-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)

const close = (a: number, b: number, rel = 1e-12) => expect(Math.abs(a - b)).toBeLessThanOrEqual(rel * Math.max(Math.abs(a), Math.abs(b)))

describe('statistics on tables', () => {
  beforeAll(async () => {
    for (const name of ['acc.csv', 'acc.parquet', 'acc.arrow']) jsonOf(paralab(['generate', 'acc', at(name), '--rows', '40000', '--seed', '3', '--json']))
    await sql(`COPY (SELECT * FROM read_csv(${lit(at('acc.csv'))})) TO ${lit(at('acc-duckdb.parquet'))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 10000)`)
    const pl = createRequire(import.meta.url)('nodejs-polars')
    // Polars keeps the spaces of the header (`datetime, acc_x`); the CSV loader trims them.
    const df = pl.readCSV(at('acc.csv'))
    df.rename(Object.fromEntries(df.columns.map((c: string) => [c, c.trim()]))).writeIPC(at('acc-polars.feather'))
  }, 120_000)

  it.each(['acc.parquet', 'acc.arrow', 'acc-duckdb.parquet', 'acc-polars.feather'])('%s gives the CSV run’s results', (name) => {
    const csv = jsonOf(paralab(['stats', at('acc.csv'), '--backend', 'serial,workers', '--repeat', '1', '--json'])).results.files[0]
    const table = jsonOf(paralab(['stats', at(name), '--backend', 'serial,workers', '--repeat', '1', '--json'])).results.files[0]
    expect(table.rows).toBe(csv.rows)
    for (const c of ['acc_x', 'acc_y', 'acc_z']) {
      expect(table.columns[c].n).toBe(csv.columns[c].n)
      expect(table.columns[c].missing).toBe(csv.columns[c].missing)
      expect(table.columns[c].median).toBe(csv.columns[c].median)
      expect(table.columns[c].mad).toBe(csv.columns[c].mad)
      close(table.columns[c].cv, csv.columns[c].cv)
    }
  })

  it('names a column asked for that holds no numbers', () => {
    const r = paralab(['stats', at('acc-duckdb.parquet'), '--columns', 'datetime'])
    expect(r.code).not.toBe(0)
    expect(errorLines(r.stderr).join('\n')).toContain(`${at('acc-duckdb.parquet')}: column "datetime" holds dates or times, not numbers`)
  })
})

describe('correlation on tables', () => {
  beforeAll(() => {
    for (const name of ['w.csv', 'w.parquet', 'w.arrow']) jsonOf(paralab(['generate', 'walks', at(name), '--series', '8', '--length', '3000', '--anomalies', '1', '--seed', '5', '--json']))
  }, 120_000)

  it.each(['w.parquet', 'w.arrow'])('%s gives the CSV run’s ranking', (name) => {
    const csv = jsonOf(paralab(['correlation', at('w.csv'), '--repeat', '1', '--json'])).results
    const table = jsonOf(paralab(['correlation', at(name), '--repeat', '1', '--json'])).results
    expect(table.input).toMatchObject({ format: name.endsWith('.parquet') ? 'parquet' : 'arrow', series: 8, length: 3000 })
    expect(table.ranking.map((r: any) => r.name)).toEqual(csv.ranking.map((r: any) => r.name))
    table.ranking.forEach((r: any, i: number) => {
      close(r.meanR, csv.ranking[i].meanR)
      close(r.medianR, csv.ranking[i].medianR)
      expect(r.flagged).toBe(csv.ranking[i].flagged)
    })
  })
})
