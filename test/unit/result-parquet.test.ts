// Every table a run writes to `--out` is also a Parquet file that DuckDB, Polars and numpy (through
// the CSV beside it) agree on: the same cells, numbers bit for bit, empty cells null, with each
// column's type and unit in the schema's metadata. One small run of each workload.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Backend } from '../../src/main/backend/backend'
import { writeOutputs } from '../../src/main/results/outputs'
import { resultTableParquet } from '../../src/main/io/parquet/write-result-table'
import { ENGINES } from '../../src/main/workloads'
import { generateAccCsv } from '../../src/main/workloads/stats/generate-acc'
import { writeGeneratedGraph } from '../../src/main/workloads/paths/generate-graph'
import { syntheticSlope } from '../../src/main/workloads/landslide/example'
import { csvCell } from '../../src/shared/csv'
import type { ResultTable } from '../../src/shared/workloads/definition'
import { duckdb, lit } from '../helpers/duckdb'

const dir = mkdtempSync(join(tmpdir(), 'paralab-result-parquet-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const pl = createRequire(import.meta.url)('nodejs-polars')

async function rows(sql: string): Promise<unknown[][]> {
  return (await (await duckdb()).runAndReadAll(sql)).getRows() as unknown[][]
}

/** A Parquet value as the CSV beside it writes it (RFC 4180 quoting undone, as DuckDB's CSV reader does). */
function asCsvText(v: unknown): string | null {
  if (v === null) return null
  const cell = csvCell(v)
  return cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell
}

/** The CSV and the Parquet file of a table hold the same cells; numbers read back exactly. */
async function expectSameTable(csv: string, parquet: string): Promise<number> {
  const text = await rows(`SELECT * FROM read_csv(${lit(csv)}, all_varchar = true, header = true, delim = ',', quote = '"', escape = '"', auto_detect = false, columns = ${columnsOf(csv)})`)
  const typed = await rows(`SELECT * FROM read_parquet(${lit(parquet)})`)
  expect(typed.length).toBe(text.length)
  typed.forEach((row, r) => row.forEach((v, c) => expect([r, c, asCsvText(v)]).toEqual([r, c, text[r][c]])))
  return typed.length
}

/** DuckDB's `columns` for read_csv: every column of the header as VARCHAR, in order. */
function columnsOf(csv: string): string {
  const header = execFileSync('head', ['-n1', csv], { encoding: 'utf8' }).trim()
  return `{${header.split(',').map((name, i) => `${lit(`c${i}_${name}`)}: 'VARCHAR'`).join(', ')}}`
}

const envelopes: Record<string, string> = {}

beforeAll(async () => {
  const backend = new Backend({ engines: ENGINES, exampleDir: at('examples') })
  const run = async (workload: string, params: Record<string, unknown>) => {
    const env = await backend.jobs.result(backend.startJob(workload as never, params as never))
    await writeOutputs(at(workload), env)
    envelopes[workload] = at(workload)
  }
  await generateAccCsv(at('acc.csv'), { rows: 2000, seed: 5, force: true })
  await run('stats', { files: [at('acc.csv')], backends: ['serial'], repeat: 1, batches: 2 })
  await writeGeneratedGraph(at('g.bin'), { vertices: 30, edges: 120, seed: 2, force: true })
  await run('paths', { files: [at('g.bin')], backends: ['serial'], repeat: 1, paths: true, from: '0', to: '29' })
  const slope = syntheticSlope(3, 16, 20)
  writeFileSync(at('dem.asc'), slope.dem)
  writeFileSync(at('source.asc'), slope.source)
  await run('landslide', { grids: [at('dem.asc'), at('source.asc')], backends: ['serial'], steps: 20, frames: 2 })
  const example = await backend.example('correlation')
  await run('correlation', { ...example.params, backends: ['serial'], repeat: 1 })
}, 120_000)

describe('--out writes each table as Parquet too', () => {
  it.each(['stats', 'paths', 'landslide', 'correlation'])('%s: DuckDB reads every Parquet table with the cells of its CSV', async (workload) => {
    const out = envelopes[workload]
    const tables = readdirSync(out).filter((n) => n.endsWith('.csv'))
    expect(tables.length).toBeGreaterThan(0)
    expect(readdirSync(out).filter((n) => n.endsWith('.parquet')).sort()).toEqual(tables.map((t) => t.replace(/\.csv$/, '.parquet')).sort())
    for (const t of tables) expect(await expectSameTable(join(out, t), join(out, t.replace(/\.csv$/, '.parquet'))), t).toBeGreaterThan(0)
  })

  it('says each column’s type and unit in the schema’s metadata, and DuckDB types the columns so', async () => {
    const file = join(envelopes.stats, 'results.parquet')
    const [[key, value]] = await rows(`SELECT decode(key), decode(value) FROM parquet_kv_metadata(${lit(file)})`)
    expect(key).toBe('paralab')
    const meta = JSON.parse(String(value))
    expect(meta.table).toBe('results')
    expect(meta.note).toMatch(/\S/)
    const byName = Object.fromEntries(meta.columns.map((c: { name: string }) => [c.name, c]))
    expect(byName.compute_ms).toEqual({ name: 'compute_ms', type: 'double', unit: 'ms' })
    expect(byName.median).toEqual({ name: 'median', type: 'double' })
    expect(byName.backend).toEqual({ name: 'backend', type: 'string' })
    const types = Object.fromEntries((await rows(`DESCRIBE SELECT * FROM read_parquet(${lit(file)})`)).map((r) => [r[0], r[1]]))
    expect([types.file, types.median, types.compute_ms]).toEqual(['VARCHAR', 'DOUBLE', 'DOUBLE'])
  })

  it('Polars reads it in one line, with the values DuckDB reads', async () => {
    const file = join(envelopes.paths, 'runs.parquet')
    const df = pl.readParquet(file)
    const duck = await rows(`SELECT * FROM read_parquet(${lit(file)})`)
    expect(df.height).toBe(duck.length)
    expect(df.columns).toEqual((await rows(`DESCRIBE SELECT * FROM read_parquet(${lit(file)})`)).map((r) => r[0]))
    expect(df.getColumn('compute_ms').toArray()).toEqual(duck.map((r) => r[df.columns.indexOf('compute_ms')]))
    expect(df.getColumn('backend').toArray()).toEqual(duck.map((r) => r[df.columns.indexOf('backend')]))
  })

  it('numpy reads the CSV beside it with the same numbers', async () => {
    const csv = join(envelopes.stats, 'results.csv')
    const fromNumpy = JSON.parse(
      execFileSync('python3', ['-c', 'import sys, json, numpy as np\na = np.genfromtxt(sys.argv[1], delimiter=",", names=True, dtype=None, encoding="utf-8")\nprint(json.dumps([float(x) for x in a["median"]]))', csv], { encoding: 'utf8' }),
    )
    const fromParquet = (await rows(`SELECT median FROM read_parquet(${lit(join(envelopes.stats, 'results.parquet'))})`)).map((r) => r[0])
    expect(fromNumpy.length).toBeGreaterThan(2)
    expect(fromParquet).toEqual(fromNumpy)
  })
})

describe('resultTableParquet', () => {
  it('keeps nulls, NaN, infinities, booleans, long runs and any text as they are', async () => {
    const n = 300
    const table: ResultTable = {
      name: 'edge',
      columns: ['x_ms', 'flag', 'text', 'mixed', 'empty'],
      rows: Array.from({ length: n }, (_, i) => [
        i < 200 ? null : i === 250 ? NaN : i === 251 ? -Infinity : i / 7,
        i % 3 === 0 ? null : i % 2 === 0,
        i === 5 ? 'a,"b"\nc ü →' : i === 6 ? '=cmd' : `r${i}`,
        i % 2 ? i : 'n/a',
        null,
      ]),
    }
    const file = at('edge.parquet')
    writeFileSync(file, resultTableParquet(table))
    const got = await rows(`SELECT x_ms, flag, text, mixed, empty FROM read_parquet(${lit(file)})`)
    expect(got.length).toBe(n)
    got.forEach((row, i) => {
      const want = table.rows[i]
      expect(Object.is(row[0], want[0]) || (Number.isNaN(row[0]) && Number.isNaN(want[0]))).toBe(true)
      expect(row.slice(1)).toEqual([want[1], want[2], String(want[3]), null])
    })
    const df = pl.readParquet(file)
    expect(df.getColumn('x_ms').nullCount()).toBe(200)
    expect(df.getColumn('text').toArray()[5]).toBe('a,"b"\nc ü →')
  })

  it('writes a table of no rows that readers open', async () => {
    const file = at('none.parquet')
    writeFileSync(file, resultTableParquet({ name: 'none', columns: ['a', 'b_ms'], rows: [] }))
    expect(await rows(`SELECT count(*)::INTEGER FROM read_parquet(${lit(file)})`)).toEqual([[0]])
    expect(pl.readParquet(file).columns).toEqual(['a', 'b_ms'])
  })
})
