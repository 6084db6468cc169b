// Hostile input files read in bounded time and memory: a .npy header built to make a regular
// expression backtrack, duplicate .npy keys, a CSV whose first line never ends, a CSV so wide
// that its correlation matrix cannot fit, and shortest distances an int32 matrix cannot hold.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { INF } from '../../src/shared/workloads/paths/types'
import { readHeader, MAX_HEADER_BYTES } from '../../src/main/io/csv/header'
import { loadSeries } from '../../src/main/workloads/correlation/load-series'
import { NPY_MAX_HEADER_BYTES, parseNpyHeader } from '../../src/main/workloads/correlation/npy'
import { unweight } from '../../src/main/workloads/paths/matrix'

const dir = mkdtempSync(join(tmpdir(), 'paralab-hardening-inputs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(ApiError)
  return e as ApiError
}

/** A .npy 2.0 preamble and the header text as given (no padding). */
function npy2(text: string): Uint8Array {
  const body = Buffer.from(text, 'latin1')
  const out = Buffer.alloc(12 + body.length)
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 2, 0]).copy(out)
  out.writeUInt32LE(body.length, 8)
  body.copy(out, 12)
  return out
}

describe('.npy header', () => {
  it("refuses 'shape':( repeated 110 000 times (990 KB) at once, by its length", async () => {
    const path = file('backtrack.npy', npy2(`{${"'shape':(".repeat(110_000)}`))
    const t0 = performance.now()
    const e = await failure(loadSeries(path, path, { layout: 'rows', precision: 'f64' }))
    expect(e.code).toBe('invalid-input')
    expect(e.message).toContain(`its header is 990001 bytes long; a header of at most ${NPY_MAX_HEADER_BYTES} bytes is read`)
    expect(performance.now() - t0).toBeLessThan(2000)
  })

  it('parses a header at the cap in one pass: the same pattern, just under 64 KiB, fails as a parse error', () => {
    const text = `{${"'shape':(".repeat(Math.floor((NPY_MAX_HEADER_BYTES - 2) / 9))}`
    const t0 = performance.now()
    expect(() => parseNpyHeader('cap.npy', npy2(text))).toThrow(/cap\.npy: not a NumPy \.npy file: its header has no number at character 10/)
    // A backtracking expression took seconds here (quadratic: 133 s at 990 KB).
    expect(performance.now() - t0).toBeLessThan(500)
  })

  it('keeps the last of duplicate keys, as NumPy (a Python dict) does', () => {
    const h = parseNpyHeader('dup.npy', npy2("{'descr': '<i8', 'fortran_order': True, 'shape': (9,), 'descr': '<f8', 'shape': (2, 3), 'fortran_order': False, }\n"))
    expect(h).toMatchObject({ descr: '<f8', fortranOrder: false, shape: [2, 3] })
  })

  it('still reads what NumPy writes, spacing and double quotes included', () => {
    expect(parseNpyHeader('a.npy', npy2("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }          \n"))).toMatchObject({ descr: '<f4', shape: [3, 4] })
    expect(parseNpyHeader('b.npy', npy2('{"descr":"<f8","fortran_order":False,"shape":(5,)}\n'))).toMatchObject({ shape: [5] })
    expect(parseNpyHeader('c.npy', npy2("{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n"))).toMatchObject({ shape: [] })
    expect(() => parseNpyHeader('d.npy', npy2("{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 2), }\n"))).toThrow(/d\.npy: .*no number/)
  })
})

describe('CSV header', () => {
  it('refuses a first line longer than the cap quickly, without joining buffers per chunk', async () => {
    // 50 MB of one line took 12 s; 100 MB 74 s.
    const path = file('long.csv', Buffer.alloc(50_000_000, 'a'))
    const t0 = performance.now()
    const e = await failure(readHeader(path))
    expect(e.code).toBe('invalid-input')
    expect(e.message).toBe(`${path}:1: the header line is longer than ${MAX_HEADER_BYTES} bytes; a header names the columns`)
    expect(performance.now() - t0).toBeLessThan(5000)
  })

  it('reads a header just under the cap, and one ending at the end of the file', async () => {
    const names = Array.from({ length: 200_000 }, (_, i) => `series_${i}`)
    const path = file('wide-header.csv', `${names.join(',')}\n${names.map(() => '1').join(',')}\n`)
    expect((await readHeader(path)).names).toHaveLength(200_000)
    expect((await readHeader(file('only.csv', 'a,b'))).names).toEqual(['a', 'b'])
  })

  it('stops reading when cancelled', async () => {
    const path = file('long2.csv', Buffer.alloc(10_000_000, 'a'))
    const controller = new AbortController()
    controller.abort()
    expect((await failure(readHeader(path, controller.signal))).code).toBe('cancelled')
  })
})

describe('a wide CSV for correlation', () => {
  it('is refused from its header, before its data is read: 100 000 columns × 20 rows', async () => {
    const m = 100_000
    const row = Array.from({ length: m }, (_, i) => String(i % 7)).join(',')
    const path = file('wide.csv', [Array.from({ length: m }, (_, i) => `s${i}`).join(','), ...Array.from({ length: 20 }, () => row)].join('\n') + '\n')
    const t0 = performance.now()
    const e = await failure(loadSeries(path, path, { layout: 'columns', precision: 'f64' }))
    expect(e.message).toContain(`${path}: 100000 series make a 100000 × 100000 matrix`)
    expect(performance.now() - t0).toBeLessThan(5000)
  })

  it('is refused for memory from its header: 60 000 columns × 5 rows against the memory available', async () => {
    const m = 60_000
    const row = Array.from({ length: m }, (_, i) => String(i % 5)).join(',')
    const path = file('wide60k.csv', [Array.from({ length: m }, (_, i) => `s${i}`).join(','), ...Array.from({ length: 5 }, () => row)].join('\n') + '\n')
    // The 60 000² f64 matrix twice (the reference and a backend's; a matrix file streams from
    // them) is 58 GB: refused on any machine the tests run on here.
    const t0 = performance.now()
    const e = await failure(loadSeries(path, path, { layout: 'columns', precision: 'f64' }))
    expect(e.message).toMatch(/wide60k\.csv: 60000 series of \d+ samples need about 58 GB of memory .* are available/)
    expect(performance.now() - t0).toBeLessThan(5000)
  })
})

describe('a text graph of one endless line', () => {
  it('is refused at its first megabyte, naming the line, in any text format', async () => {
    const { readGraph } = await import('../../src/main/workloads/paths/read-graph')
    const { MAX_LINE_CHARS } = await import('../../src/main/workloads/paths/text-lines')
    for (const name of ['endless.gr', 'endless.csv']) {
      const path = file(name, Buffer.alloc(50_000_000, 'c'))
      const t0 = performance.now()
      const e = await failure(readGraph(path, name))
      expect(e.code).toBe('invalid-input')
      expect(e.message).toBe(`${name}:1: the line is longer than ${MAX_LINE_CHARS} characters; not a graph's line`)
      expect(performance.now() - t0).toBeLessThan(2000)
    }
  })
})

describe('shortest distances beyond int32', () => {
  const names = (v: number) => String(v + 1)
  it('refuses, naming the pair, a distance reweighted back below −2^31 or at INF and above', () => {
    // Johnson potentials of arcs 1→2, 2→3, 3→4 of −1073741823: all reweighted distances are 0.
    const h = Float64Array.from([0, -1073741823, -2147483646, -3221225469])
    const d = new Int32Array(16) // every reweighted distance 0
    expect(() => unweight(d.slice(), 4, h, 'g.gr', names)).toThrow(
      'g.gr: the shortest distance from 1 to 4 is -3221225469, outside the int32 distances the matrix holds (-2147483648 … 1073741822; 1073741823 means unreachable)',
    )
    // From 4 back to 1 through arcs of +1073741823: 3221225469.
    const h2 = Float64Array.from([0, -1073741823, -2147483646, -3221225469])
    const d2 = new Int32Array(16).fill(INF)
    d2[3 * 4 + 0] = 0
    expect(() => unweight(d2, 4, h2, 'g.gr', names)).toThrow('from 4 to 1 is 3221225469')
    // Exactly INF would read as unreachable.
    const d3 = new Int32Array([0, 0, 0, 0])
    expect(() => unweight(d3, 2, Float64Array.from([0, -1073741823]), 'g.gr', names)).toThrow('from 2 to 1 is 1073741823')
  })

  it('keeps every distance in range, down to −2^31', () => {
    const d = new Int32Array([0, 0, INF, 0])
    unweight(d, 2, Float64Array.from([0, -2147483648]), 'g.gr', names)
    expect([...d]).toEqual([0, -2147483648, INF, 0])
  })
})

describe('a wide CSV loaded by the threads', () => {
  it('hands 40 000 columns to the threads in a few buffers: five ranges load in seconds, every value in place', async () => {
    const { loadCsv } = await import('../../src/main/io/csv-loader')
    const m = 40_000
    const rows = Array.from({ length: 5 }, (_, r) => Array.from({ length: m }, (_, c) => String((c * 7 + r) % 10)).join(','))
    const path = file('wide-load.csv', [Array.from({ length: m }, (_, i) => `s${i}`).join(','), ...rows].join('\n') + '\n')
    const names = Array.from({ length: m }, (_, i) => `s${i}`)
    const t0 = performance.now()
    // One range a line: every range task posts the columns (186 s of postMessage before).
    const table = await loadCsv(path, { columns: names, threads: 2, rangeBytes: 64 * 1024 })
    expect(performance.now() - t0).toBeLessThan(20_000)
    expect(table.rows).toBe(5)
    for (const c of [0, 1, 12_345, m - 1]) expect(Array.from(table.columns[`s${c}`].values)).toEqual([0, 1, 2, 3, 4].map((r) => (c * 7 + r) % 10))
  })
})
