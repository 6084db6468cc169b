// Arrow IPC files and streams through the loader's threads (built into out/main by `npm run
// build`), against the same rows as CSV: fixtures written by Polars (nodejs-polars) at set-up.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCsv } from '../../src/main/io/csv-loader'
import { binaryTableColumns, loadTable, tableFormat } from '../../src/main/io/table-loader'
import { failure } from '../helpers/failure'

const pl = createRequire(import.meta.url)('nodejs-polars')
const dir = mkdtempSync(join(tmpdir(), 'paralab-arrow-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)

const ROWS = 20_000
const COLUMNS = ['x', 'y', 'i', 'f']

describe('Arrow loader', () => {
  beforeAll(() => {
    const range = Array.from({ length: ROWS }, (_, k) => k)
    const df = pl.DataFrame({
      x: range.map((k) => k / 7),
      y: pl.Series('y', BigInt64Array.from(range, (k) => BigInt(k * 3 - 70000))),
      i: pl.Series('i', range.map((k) => (k % 97) - 40), pl.Int32),
      f: range.map((k) => Math.round(Math.sin(k) * 1000) / 10),
      n: range.map((k) => (k % 7 === 3 ? null : k / 3)),
      s: range.map((k) => `a${k}`),
    })
    df.writeCSV(at('t.csv'))
    df.writeIPC(at('t.arrow'))
    df.writeIPCStream(at('t.arrows'))
    df.writeIPC(at('t-zstd.arrow'), { compression: 'zstd' })
    df.writeIPC(at('t-lz4.arrow'), { compression: 'lz4' })
  })

  it.each(['t.arrow', 't.arrows', 't-zstd.arrow', 't-lz4.arrow'])('reads %s (file and stream formats, ZSTD- and LZ4-compressed) as the CSV loader reads the same rows', async (name) => {
    expect(await tableFormat(at(name))).toBe('arrow')
    const columns = [...COLUMNS, 'n']
    const a = await loadCsv(at('t.csv'), { columns })
    const b = await loadTable(at(name), { columns, threads: 2 })
    expect(b.rows).toBe(ROWS)
    for (const c of columns) {
      expect(b.columns[c].missing).toBe(a.columns[c].missing)
      expect(Array.from(b.columns[c].values)).toEqual(Array.from(a.columns[c].values))
    }
  })

  it('lists numeric columns and leaves text out', async () => {
    expect(await binaryTableColumns(at('t.arrow'))).toMatchObject({ numeric: ['x', 'y', 'i', 'f', 'n'], other: ['s'] })
  })

  it('refuses a null where every cell must hold a number, naming its row and column', async () => {
    const e = await failure(loadTable(at('t.arrow'), { columns: ['n'], nulls: 'refuse' }))
    expect(e.message).toBe(`${at('t.arrow')} (record batch 0, column "n"): row 4 is null; every cell must hold a number`)
  })

  it('refuses a record batch whose LZ4 frame is corrupt, naming the batch, the column and the frame\'s checksum', async () => {
    // The first frame's block size byte changed: its header checksum no longer matches.
    const bytes = readFileSync(at('t-lz4.arrow'))
    const frame = bytes.indexOf(Buffer.from([0x04, 0x22, 0x4d, 0x18]))
    expect(frame).toBeGreaterThan(0)
    bytes[frame + 5] ^= 0x10
    writeFileSync(at('t-lz4-corrupt.arrow'), bytes)
    const e = await failure(loadTable(at('t-lz4-corrupt.arrow'), { columns: COLUMNS }))
    expect(e.message).toMatch(/t-lz4-corrupt\.arrow \(record batch 0, column "\w+"\): the (values|validity bitmap) cannot be decompressed: LZ4 frame is corrupt: its header checksum does not match/)
  })
})
