// The parallel CSV loader, through its worker threads (built into out/main by `npm run build`).
// Tiny ranges and blocks make every file here span many ranges and reads.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadCsv, readCsvHeader, type LoadCsvOptions } from '../../src/main/io/csv-loader'
import { kindsFromTally, sampleColumnKinds, tallyKinds } from '../../src/main/io/csv/column-kinds'
import { readHeader } from '../../src/main/io/csv/header'
import { failure } from '../helpers/failure'

const dir = mkdtempSync(join(tmpdir(), 'paralab-csv-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let fileNo = 0
function file(content: string | Buffer): string {
  const path = join(dir, `f${fileNo++}.csv`)
  writeFileSync(path, content)
  return path
}

const ACC = ['acc_x', 'acc_y', 'acc_z']
const small = { threads: 2, rangeBytes: 48, blockBytes: 16 }

function load(path: string, columns = ACC, opts: Partial<LoadCsvOptions> = {}) {
  return loadCsv(path, { columns, ...small, ...opts })
}

/** Plain values of a loaded column. */
function values(t: Awaited<ReturnType<typeof loadCsv>>, name: string): number[] {
  return Array.from(t.columns[name].values)
}

/** The straightforward reading of a file without quotes: split lines, split commas, Number(). */
function reference(text: string, columns: string[]) {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  const header = lines[0].split(',').map((s) => s.trim())
  const at = columns.map((c) => header.indexOf(c))
  const out = columns.map(() => [] as number[])
  const missing = columns.map(() => 0)
  let rows = 0
  for (const line of lines.slice(1)) {
    if (line === '') continue
    rows++
    const fields = line.split(',')
    at.forEach((i, k) => {
      const s = fields[i].trim()
      if (s === '') missing[k]++
      else out[k].push(Number(s))
    })
  }
  return { rows, values: out, missing }
}

async function invalid(p: Promise<unknown>, message: string): Promise<void> {
  const e = await failure(p)
  expect(e.message).toBe(message)
  expect(e.code).toBe('invalid-input')
}

/** A seeded generator, so a failing file can be rebuilt. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

/** An accelerometer-like file with varied number forms, missing cells, blank lines and CRLF. */
function generated(rows: number, seed: number): string {
  const r = rng(seed)
  const forms = [
    () => `${Math.round((r() - 0.5) * 256)}.0`,
    () => String((r() - 0.5) * 100),
    () => ((r() - 0.5) * 1e4).toExponential(Math.floor(r() * 18)),
    () => `${r() < 0.5 ? '-' : '+'}.${Math.floor(r() * 1000)}`,
    () => `${Math.floor(r() * 1e9)}${Math.floor(r() * 1e9)}${Math.floor(r() * 1e3)}`, // beyond 2^53
    () => ` ${Math.round(r() * 100)} `,
  ]
  const lines = ['datetime, acc_x, acc_y, acc_z']
  for (let i = 0; i < rows; i++) {
    const cell = () => (r() < 0.03 ? '' : forms[Math.floor(r() * forms.length)]())
    lines.push(`2020-02-13 15:28:${String(i % 60).padStart(2, '0')}.${String(i).padStart(6, '0')},${cell()},${cell()},${cell()}${r() < 0.1 ? '\r' : ''}`)
    if (r() < 0.02) lines.push('')
  }
  return lines.join('\n') + '\n'
}

describe('loadCsv', () => {
  it('matches a straightforward parse on a file cut into hundreds of ranges', async () => {
    const text = generated(3000, 1)
    const path = file(text)
    const ref = reference(text, ACC)
    const t = await load(path, ACC, { rangeBytes: 300, blockBytes: 64 })
    expect(t.rows).toBe(ref.rows)
    expect(t.header).toEqual(['datetime', 'acc_x', 'acc_y', 'acc_z'])
    expect(t.bytes).toBe(Buffer.byteLength(text))
    ACC.forEach((c, k) => {
      expect(values(t, c)).toEqual(ref.values[k])
      expect(t.columns[c].missing).toBe(ref.missing[k])
    })
    expect(ref.missing.every((m) => m > 0)).toBe(true)
  })

  it('gives the same table whatever the ranges, blocks and threads', async () => {
    const path = file(generated(500, 2))
    const a = await load(path, ACC, { threads: 1, rangeBytes: 1 << 20, blockBytes: 1 << 16 })
    const b = await load(path, ACC, { threads: 2, rangeBytes: 7, blockBytes: 5 })
    expect(b.rows).toBe(a.rows)
    for (const c of ACC) expect(values(b, c)).toEqual(values(a, c))
  })

  it('returns columns in shared memory, only those asked for', async () => {
    const t = await load(file('datetime, acc_x, acc_y, acc_z\n2020-01-01 00:00:00.000000,1.0,2.0,3.0\n'), ['acc_z', 'acc_x'])
    expect(Object.keys(t.columns)).toEqual(['acc_z', 'acc_x'])
    expect(t.columns.acc_z.values.buffer).toBeInstanceOf(SharedArrayBuffer)
    expect(values(t, 'acc_z')).toEqual([3])
    expect(values(t, 'acc_x')).toEqual([1])
    expect(t.load_ms).toBeGreaterThan(0)
  })

  it('reads a BOM, CRLF, header spaces, blank lines and a missing final newline', async () => {
    const text = '\uFEFFdatetime , acc_x,acc_y,  acc_z\r\n\r\nt1,-38.0,28.0,51.0\r\n\r\n\nt2,1e-3,.5,+2\r\nt3,-0.0,7,8'
    const t = await load(file(text))
    expect(t.header).toEqual(['datetime', 'acc_x', 'acc_y', 'acc_z'])
    expect(t.rows).toBe(3)
    expect(values(t, 'acc_x')).toEqual([-38, 0.001, -0])
    expect(values(t, 'acc_y')).toEqual([28, 0.5, 7])
    expect(values(t, 'acc_z')).toEqual([51, 2, 8])
  })

  it('reads quoted fields: commas and escaped quotes inside, quoted numbers', async () => {
    const text = [
      'datetime,acc_x,note,acc_y',
      '"2020-01-01, 10:00","1.5","he said ""hi"", twice",2',
      '"x""y" ,  "-3" ,"",4',
      'plain,5,  "padded" ,"6"',
    ].join('\n')
    const t = await load(file(text), ['acc_x', 'acc_y'])
    expect(t.rows).toBe(3)
    expect(values(t, 'acc_x')).toEqual([1.5, -3, 5])
    expect(values(t, 'acc_y')).toEqual([2, 4, 6])
  })

  it('skips empty cells, quoted empty ones too, and counts them per column', async () => {
    const text = 'datetime,acc_x,acc_y,acc_z\na,,1,""\nb,2,,3\nc,  ,"",4\nd,5,6,\r\n'
    const t = await load(file(text))
    expect(t.rows).toBe(4)
    expect(values(t, 'acc_x')).toEqual([2, 5])
    expect(values(t, 'acc_y')).toEqual([1, 6])
    expect(values(t, 'acc_z')).toEqual([3, 4])
    expect(ACC.map((c) => t.columns[c].missing)).toEqual([2, 2, 2])
  })

  it('reports progress up to the whole file', async () => {
    const text = generated(200, 3)
    const seen: { bytesRead: number; totalBytes: number; rows: number }[] = []
    const t = await load(file(text), ACC, { rangeBytes: 500, progress: (p) => seen.push(p) })
    expect(seen.length).toBeGreaterThan(5)
    for (let i = 1; i < seen.length; i++) expect(seen[i].bytesRead).toBeGreaterThan(seen[i - 1].bytesRead)
    expect(seen.at(-1)).toEqual({ bytesRead: t.bytes, totalBytes: t.bytes, rows: t.rows })
  })

  it('hands out growing prefixes that already hold their final values', async () => {
    const text = generated(3000, 4)
    const seen: number[][][] = []
    const t = await load(file(text), ['acc_z', 'acc_x'], {
      threads: 2,
      rangeBytes: 400,
      blockBytes: 64,
      // Copied at once: a prefix must be final when it is handed out, not later.
      placed: (prefixes) => seen.push(prefixes.map((p) => Array.from(p))),
    })
    expect(seen.length).toBeGreaterThan(10)
    for (const [k, prefix] of seen.entries()) {
      expect(prefix[0]).toEqual(values(t, 'acc_z').slice(0, prefix[0].length))
      expect(prefix[1]).toEqual(values(t, 'acc_x').slice(0, prefix[1].length))
      if (k > 0) expect(prefix[0].length).toBeGreaterThanOrEqual(seen[k - 1][0].length)
    }
    expect(seen.at(-1)![0].length).toBe(t.columns.acc_z.values.length)
  })

  it('loads the dataset sample', async () => {
    const path = resolve('../shared/data/accelerometer/ACC_016_head.csv')
    const { readFileSync } = await import('node:fs')
    const ref = reference(readFileSync(path, 'utf8'), ACC)
    const t = await loadCsv(path, { columns: ACC, threads: 2, rangeBytes: 512 })
    expect(t.rows).toBe(100)
    ACC.forEach((c, k) => expect(values(t, c)).toEqual(ref.values[k]))
    expect(values(t, 'acc_x').slice(0, 2)).toEqual([-39, -38])
    expect(await readCsvHeader(path)).toEqual(['datetime', 'acc_x', 'acc_y', 'acc_z'])
  })
})

describe('loadCsv numbers', () => {
  function digits(r: () => number, n: number): string {
    let s = ''
    for (let i = 0; i < n; i++) s += String(Math.floor(r() * 10))
    return s
  }

  /** Decimal texts of many shapes: signs, leading zeros, long mantissas, exponents, padding. */
  function randomDecimal(r: () => number): string {
    const kind = r()
    if (kind < 0.15) return String((r() - 0.5) * 10 ** Math.floor(r() * 40 - 20))
    if (kind < 0.25) return ((r() - 0.5) * 1000).toFixed(Math.floor(r() * 8))
    if (kind < 0.3) return (r() * 1e6).toExponential(Math.floor(r() * 17))
    const sign = ['', '-', '+'][Math.floor(r() * 3)]
    const int = digits(r, Math.floor(r() * (r() < 0.8 ? 6 : 22)))
    let frac = r() < 0.7 ? '.' + digits(r, Math.floor(r() * (r() < 0.8 ? 4 : 26))) : ''
    if (int === '' && frac.length < 2) frac = '.0'
    let s = sign + int + frac
    if (r() < 0.1) s += (r() < 0.5 ? 'e' : 'E') + ['', '-', '+'][Math.floor(r() * 3)] + digits(r, 1 + Math.floor(r() * 2))
    if (r() < 0.03) s = ' ' + s + '\t'
    return s
  }

  it('reads every number exactly as Number() does', async () => {
    const r = rng(7)
    const texts = Array.from({ length: 40_000 }, () => randomDecimal(r))
    const text = 'i,x\n' + texts.map((t, i) => `${i},${t}`).join('\n') + '\n'
    const t = await load(file(text), ['x'], { rangeBytes: 4096, blockBytes: 1024 })
    const got = t.columns.x.values
    expect(got.length).toBe(texts.length)
    let shortDecimals = 0
    texts.forEach((s, i) => {
      if (/^-?\d{1,15}(\.\d{0,15})?$/.test(s)) shortDecimals++
      if (!Object.is(got[i], Number(s))) expect.fail(`${JSON.stringify(s)}: read ${got[i]}, Number() gives ${Number(s)}`)
    })
    // Most of them take the parser's fast path, the others its general one.
    expect(shortDecimals).toBeGreaterThan(texts.length / 3)
    expect(shortDecimals).toBeLessThan(texts.length)
  })

  it('reads the edges of the fast path exactly', async () => {
    const texts = ['-38.0', '0.0', '-0.0', '-0', '127', '5.', '.5', '-.5', '00012', '9007199254740991', '9007199254740992', '9007199254740993',
      '0.1', '0.3', '4.35', '1.0000000000000000000001', '0.0000000000000000000001', '0.00000000000000000000001', '123456789012345678901234567890']
    const t = await load(file('x\n' + texts.join('\n')), ['x'])
    texts.forEach((s, i) => expect(Object.is(t.columns.x.values[i], Number(s)), s).toBe(true))
  })
})

describe('loadCsv errors', () => {
  /** Rows of a valid file, line 1 being the header. */
  function lines(rows: number): string[] {
    const out = ['datetime, acc_x, acc_y, acc_z']
    for (let i = 0; i < rows; i++) out.push(`2020-02-13 15:28:50.${String(i).padStart(6, '0')},${i % 7}.0,-${i % 5}.0,${i % 3}.5`)
    return out
  }

  it('names file, line, column and text of a bad value deep in a later range', async () => {
    const l = lines(2000)
    l.splice(700, 0, '', '\r') // blank lines still count as lines
    l[1500] = l[1500].replace(/,([^,]*),([^,]*)$/, ',abc,$2')
    const path = file(l.join('\n'))
    await invalid(load(path, ACC, { rangeBytes: 256 }), `${path}:1501:3: column "acc_y": "abc" is not a number`)
  })

  it('reports the first bad line of the file when several ranges have one', async () => {
    const l = lines(1000)
    l[900] = l[900].replace(/,[^,]*$/, ',x9')
    l[300] = l[300].replace(/,[^,]*$/, ',"1.2.3"')
    const path = file(l.join('\n'))
    await invalid(load(path, ACC, { rangeBytes: 100 }), `${path}:301:4: column "acc_z": "1.2.3" is not a number`)
  })

  it('rejects NaN, Infinity, hex and out-of-range numbers', async () => {
    for (const [text, what] of [
      ['NaN', 'is not a number'],
      ['-Infinity', 'is not a number'],
      ['0x1F', 'is not a number'],
      ['1e400', 'is out of range'],
    ]) {
      const l = lines(10)
      l[5] = l[5].replace(/,[^,]*,/, `,${text},`)
      const path = file(l.join('\n'))
      await invalid(load(path), `${path}:6:2: column "acc_x": "${text}" ${what}`)
    }
  })

  it('rejects ragged rows', async () => {
    const few = lines(100)
    few[56] = '2020-02-13 15:28:50.000000,1.0,2.0'
    let path = file(few.join('\n'))
    await invalid(load(path), `${path}:57: expected 4 fields, found 3`)
    const many = lines(100)
    many[80] = 'a,1,2,3,"4,5",6\r'
    path = file(many.join('\r\n'))
    await invalid(load(path), `${path}:81: expected 4 fields, found 6`)
  })

  it('rejects a header-only file, an empty file and a missing column', async () => {
    let path = file('datetime, acc_x, acc_y, acc_z\n')
    await invalid(load(path), `${path}: no data rows`)
    path = file('datetime, acc_x, acc_y, acc_z\n\n\r\n')
    await invalid(load(path), `${path}: no data rows`)
    path = file('')
    await invalid(load(path), `${path}: empty file`)
    await invalid(readCsvHeader(path), `${path}: empty file`)
    path = file('\uFEFF')
    await invalid(load(path), `${path}: empty file`)
    path = file('\r\n1,2\n')
    await invalid(load(path), `${path}:1: the header line is empty`)
    path = file(lines(3).join('\n'))
    await invalid(load(path, ['acc_x', 'acc_q']), `${path}: no column "acc_q"; columns are: "datetime", "acc_x", "acc_y", "acc_z"`)
  })

  it('says that line breaks inside quoted fields are not supported', async () => {
    const l = lines(50)
    l[30] = '"2020-02-13\n15:28:50",1.0,2.0,3.0'
    const path = file(l.join('\n'))
    await invalid(
      load(path, ACC, { rangeBytes: 64 }),
      `${path}:31:1: column "datetime": quoted field is not closed on its line (line breaks inside quoted fields are not supported)`,
    )
    const open = file('a,b\n1,"2\n')
    await invalid(load(open, ['b']), `${open}:2:2: column "b": quoted field is not closed on its line (line breaks inside quoted fields are not supported)`)
  })

  it('rejects text after a closing quote', async () => {
    const path = file('a,b\n1,2\n3,"4"x\n')
    await invalid(load(path, ['a', 'b']), `${path}:3:2: column "b": unexpected text after the closing quote`)
  })

  it('rejects thread, range and block sizes that are not positive integers', async () => {
    const path = file('x\n1\n')
    for (const opts of [{ threads: 0 }, { rangeBytes: -1 }, { blockBytes: 1.5 }]) {
      const e = await failure(load(path, ['x'], opts))
      expect(e.code).toBe('invalid-argument')
    }
  })

  it('fails with code io for a file that does not exist', async () => {
    const e = await failure(load(join(dir, 'nope.csv')))
    expect(e.code).toBe('io')
    expect(e.message).toBe(`cannot read ${join(dir, 'nope.csv')}: no such file`)
  })
})

describe('loadCsv cancellation', () => {
  it('rejects with code cancelled when aborted during the load', async () => {
    const path = file(generated(2000, 4))
    const ac = new AbortController()
    let reports = 0
    const e = await failure(
      load(path, ACC, {
        rangeBytes: 200,
        signal: ac.signal,
        progress: () => {
          if (++reports === 3) ac.abort()
        },
      }),
    )
    expect(e.code).toBe('cancelled')
  })

  it('rejects at once when already aborted', async () => {
    const ac = new AbortController()
    ac.abort()
    const e = await failure(load(file(generated(10, 5)), ACC, { signal: ac.signal }))
    expect(e.code).toBe('cancelled')
  })
})

describe('column kinds from a sample of rows', () => {
  const kinds = async (path: string) => sampleColumnKinds(path, await readHeader(path))

  it('a column of text throughout is text; a numeric column with a stray cell on its first row stays numeric', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `2020-02-13 15:28:${String(i).padStart(2, '0')},${i === 0 ? 'oops' : i},${i % 3},,label${i}`)
    const path = file(['datetime,a,b,empty,tag', ...rows].join('\n') + '\n')
    expect(await kinds(path)).toEqual({ numeric: ['a', 'b', 'empty'], text: ['datetime', 'tag'] })
  })

  it('samples the middle and the end of a long file, not only its start', async () => {
    // The first megabyte's "t" column is empty: its kind comes from the rows further on.
    const start = Array.from({ length: 200_000 }, (_, i) => `${i},`)
    const rest = Array.from({ length: 200_000 }, (_, i) => `${i},name${i}`)
    const path = file(['n,t', ...start, ...rest].join('\n') + '\n')
    expect(await kinds(path)).toEqual({ numeric: ['n'], text: ['t'] })
  })

  it('a tie counts as numeric, so the loader names the stray cell', () => {
    expect(kindsFromTally(['a', 'b'], tallyKinds(2, ['x,1', '2,y', '3,z']))).toEqual({ numeric: ['a'], text: ['b'] })
    expect(kindsFromTally(['a'], tallyKinds(1, ['x', '2']))).toEqual({ numeric: ['a'], text: [] })
  })
})
