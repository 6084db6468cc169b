// Parquet and Arrow tables under `paralab serve`: a large table loads on the loader's threads while
// a ping sent meanwhile is answered within 1 s, and a hostile one is refused as invalid input,
// naming the file and the place. Tables written by `paralab generate` and by DuckDB at set-up.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { footerMetadata, pageHeader } from '../../src/main/io/parquet/write-parquet'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'
import { connectApi, jobWhilePinging, type ApiClient } from '../helpers/api-client'
import { lit, sql } from '../helpers/duckdb'

let root: string
let data: string
let serve: ServeProcess
let api: ApiClient
const ROWS = 3_000_000

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'paralab-tables-serve-'))
  data = join(root, 'data')
  mkdirSync(data)
  execFileSync(process.execPath, [CLI, 'generate', 'acc', join(data, 'big.parquet'), '--rows', String(ROWS)], { stdio: 'ignore' })
  await sql(`COPY (SELECT CASE WHEN range % 1000 = 7 THEN NULL ELSE sin(range) END AS acc_x, cos(range) AS acc_y, range::DOUBLE AS acc_z FROM range(${ROWS})) TO ${lit(join(data, 'big-zstd.parquet'))} (FORMAT parquet, COMPRESSION zstd)`)
  // A page of 1000 doubles whose gzip data expands to 64 MiB.
  const body = gzipSync(Buffer.alloc(64 * 1024 * 1024))
  const header = pageHeader(8000, body.length, 1000)
  const footer = footerMetadata([{ name: 'acc_x', type: 'double' }], [{ rows: 1000, chunks: [{ offset: 4, size: header.length + body.length, raw: header.length + 8000 }] }], 'gzip')
  const tail = Buffer.alloc(8)
  tail.writeUInt32LE(footer.length, 0)
  tail.write('PAR1', 4, 'latin1')
  writeFileSync(join(data, 'bomb.parquet'), Buffer.concat([Buffer.from('PAR1'), header, body, footer, tail]))
  // A footer of 160 000 column chunks (about 5 MB: seconds to parse), all past the file's data.
  const groups = Array.from({ length: 40_000 }, () => ({ rows: 10, chunks: [0, 1, 2, 3].map(() => ({ offset: 4, size: 100, raw: 100 })) }))
  const wide = footerMetadata(['datetime', 'acc_x', 'acc_y', 'acc_z'].map((name) => ({ name, type: 'double' as const })), groups, 'uncompressed')
  const wideTail = Buffer.alloc(8)
  wideTail.writeUInt32LE(wide.length, 0)
  wideTail.write('PAR1', 4, 'latin1')
  writeFileSync(join(data, 'footer.parquet'), Buffer.concat([Buffer.from('PAR1'), wide, wideTail]))
  serve = await startServe(['--data', data])
  api = await connectApi(serve)
}, 180_000)
afterAll(async () => {
  api?.close()
  await serve?.stop()
  rmSync(root, { recursive: true, force: true })
})

const whilePinging = (workload: string, params: Record<string, unknown>) => jobWhilePinging(api, workload, params)

describe('Parquet tables under serve', () => {
  it('a footer of megabytes is parsed on a loader thread: pings answered meanwhile, then its chunks refused', async () => {
    const { end, worst } = await whilePinging('stats', { files: [join(data, 'footer.parquet')], backends: ['workers'], repeat: 1 })
    expect(end.type).toBe('failed')
    expect(end.error).toEqual({ code: 'invalid-input', message: `${join(data, 'footer.parquet')} (row group 0, column "acc_x"): the column chunk announces bytes 4–104, past the file's data (bytes 4–4)` })
    expect(worst).toBeLessThan(1000)
  }, 60_000)

  it.each(['big.parquet', 'big-zstd.parquet'])('%s loads and is analysed while pings are answered within 1 s', async (name) => {
    const { end, worst } = await whilePinging('stats', { files: [join(data, name)], backends: ['workers'], repeat: 1 })
    expect(end.type).toBe('done')
    const file = end.envelope.results.files[0]
    expect(file.rows).toBe(ROWS)
    expect(file.columns.acc_x.n + file.columns.acc_x.missing).toBe(ROWS)
    expect(worst).toBeLessThan(1000)
  }, 120_000)

  it('a compression bomb is refused as invalid input naming its page, pings answered meanwhile', async () => {
    const { end, worst } = await whilePinging('stats', { files: [join(data, 'bomb.parquet')], backends: ['workers'], repeat: 1 })
    expect(end.type).toBe('failed')
    expect(end.error).toEqual({ code: 'invalid-input', message: `${join(data, 'bomb.parquet')} (row group 0, column "acc_x", page 0): gzip data expands past the 8000 bytes the page header announces` })
    expect(worst).toBeLessThan(1000)
  })
})
