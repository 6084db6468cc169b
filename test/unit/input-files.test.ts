// Inputs that are not UTF-8 CSV files are refused before reading, with a message that names the
// file and says what it is: FIFOs, folders and devices; UTF-16/32 and other encodings; CR-only line
// endings; duplicate column names. Messages quote bad values briefly, however long they are.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DataAccess } from '../../src/main/backend/data-files'
import { loadCsv } from '../../src/main/io/csv-loader'
import { failure } from '../helpers/failure'
import { CLI } from '../helpers/serve'

const dir = mkdtempSync(join(tmpdir(), 'paralab-input-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let fileNo = 0
function file(content: string | Buffer, name = `f${fileNo++}.csv`): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}
const load = (path: string, columns = ['a']) => loadCsv(path, { columns, threads: 2, rangeBytes: 64, blockBytes: 32 })
const utf16 = (text: string, bigEndian = false) => {
  const le = Buffer.from(text, 'utf16le')
  return bigEndian ? Buffer.from(le.map((_, i) => le[i ^ 1])) : le
}

describe('files that are not regular files', () => {
  const fifo = join(dir, 'pipe.csv')
  execFileSync('mkfifo', [fifo])
  const folder = join(dir, 'folder.csv')
  mkdirSync(folder)

  it.each([
    [fifo, 'a named pipe (FIFO)'],
    [folder, 'a folder'],
    ['/dev/null', 'a device'],
  ])('the loader refuses %s as %s, without opening it', async (path, what) => {
    const err = await failure(load(path))
    expect(err.message).toBe(`${path} is ${what}, not a data file`)
  })

  it('the backend refuses them before any workload reads them', async () => {
    const access = new DataAccess([dir])
    expect((await failure(access.check(fifo))).message).toBe(`${fifo} is a named pipe (FIFO), not a data file`)
    expect((await failure(access.check(folder))).message).toBe(`${folder} is a folder, not a data file`)
  })

  it('`paralab stats` on a FIFO exits 1 at once instead of waiting for a writer', () => {
    const r = spawnSync(process.execPath, [CLI, 'stats', fifo, '--backend', 'serial'], { encoding: 'utf8', timeout: 30_000 })
    expect(r.signal).toBeNull()
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('is a named pipe (FIFO), not a data file')
  })
})

describe('paths outside the data folders', () => {
  it('get the same answer whether they exist or not', async () => {
    const inside = join(dir, 'inside')
    mkdirSync(inside)
    const access = new DataAccess([inside])
    const existing = file('a\n1\n', 'outside.csv')
    const a = await failure(access.check(existing))
    const b = await failure(access.check(join(dir, 'no-such.csv')))
    expect(a.code).toBe('invalid-argument')
    expect({ code: b.code, message: b.message.replace('no-such.csv', 'outside.csv') }).toEqual({ code: a.code, message: a.message })
    // Inside, a missing file is reported as missing.
    expect((await failure(access.check(join(inside, 'gone.csv')))).message).toContain('no such file')
  })
})

describe('encodings', () => {
  it.each([
    ['UTF-16 LE with a BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), utf16('a,b\n1,2\n')]), 'is UTF-16 text (little-endian, with a byte-order mark)'],
    ['UTF-16 BE with a BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16('a,b\n1,2\n', true)]), 'is UTF-16 text (big-endian, with a byte-order mark)'],
    ['UTF-16 LE without a BOM', utf16('a,b\n1,2\n3,4\n'), 'is UTF-16 text (little-endian, without a byte-order mark)'],
    ['UTF-16 BE without a BOM', utf16('a,b\n1,2\n3,4\n', true), 'is UTF-16 text (big-endian, without a byte-order mark)'],
    ['UTF-32 LE', Buffer.from([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0, 0x0a, 0, 0, 0]), 'is UTF-32 text'],
    ['Latin-1', Buffer.from('a,temp\xe9rature\n1,2\n', 'latin1'), 'is not UTF-8 text'],
    ['binary', Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0x00, 0x17, 0x93, 0x00, 0x01, 0x02]), 'holds NUL bytes (at byte 4)'],
  ])('%s is named, with how to convert it', async (_what, bytes, message) => {
    const path = file(bytes)
    const err = await failure(load(path))
    expect(err.code).toBe('invalid-input')
    expect(err.message).toContain(`${path}: ${message}`)
    if (!message.startsWith('holds')) expect(err.message).toContain('save it as UTF-8')
  })

  it('a UTF-8 byte-order mark is skipped, and UTF-8 names load', async () => {
    const t = await load(file('\uFEFFtempérature,b\n1.5,2\n-3,4\n'), ['température'])
    expect(Array.from(t.columns['température'].values)).toEqual([1.5, -3])
  })
})

describe('line endings and headers', () => {
  it('CR-only line endings are named as such', async () => {
    const path = file('a,b\r1,2\r3,4\r')
    expect((await failure(load(path))).message).toBe(`${path}:1: lines end with CR alone (classic Mac line endings); convert them to LF or CRLF (e.g. tr '\\r' '\\n')`)
  })

  it('CRLF line endings still read', async () => {
    expect(Array.from((await load(file('a,b\r\n1,2\r\n3,4\r\n'))).columns.a.values)).toEqual([1, 3])
  })

  it('duplicate column names are an error naming both positions', async () => {
    const path = file('time,a,b,a\n1,2,3,4\n')
    expect((await failure(load(path, ['b']))).message).toBe(`${path}:1: columns 2 and 4 are both named "a"; rename one of them`)
  })
})

describe('messages stay short', () => {
  it('a 10 MB bad value is quoted up to 80 characters', async () => {
    const path = file(`a\n1\n${'x'.repeat(10_000_000)}\n`)
    const err = await failure(load(path))
    expect(err.message).toBe(`${path}:3:1: column "a": "${'x'.repeat(80)}…" is not a number`)
  })

  it('a missing column lists a bounded number of the file\'s columns', async () => {
    const names = Array.from({ length: 5000 }, (_, i) => `c${i}`)
    const path = file(`${names.join(',')}\n${names.map(() => '1').join(',')}\n`)
    const err = await failure(load(path, ['nope']))
    expect(err.message.length).toBeLessThan(400)
    expect(err.message).toContain('"c0", "c1"')
    expect(err.message).toContain('(4980 more)')
  })
})
