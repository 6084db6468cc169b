// Property-based fuzzing of the text and array readers (test/helpers/fuzz.ts): mutations of small
// valid files — flipped bytes, truncations, counts set to 0, 2^29, 2^31 − 1, 2^32 … — each end in a
// result or a refusal naming the file, within time and memory bounds; counts in headers set to the
// boundaries are refused by what the file can hold, not allocated; a cancel ends a read within a
// second. Seeded (PARALAB_FUZZ_SEED); PARALAB_FUZZ_RUNS raises the count (`npm run build` first:
// the CSV loader's threads load from out/).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { loadCsv } from '../../src/main/io/csv-loader'
import { readNpy } from '../../src/main/workloads/correlation/read-npy'
import { readGraph } from '../../src/main/workloads/paths/read-graph'
import { courseGraphBytes } from '../../src/main/workloads/paths/read-course'
import { parseGrid, parseHeader, splitLines } from '../../src/main/workloads/landslide/esri-grid'
import { ApiError } from '../../src/shared/errors'
import { BOUNDARY_COUNTS, FUZZ_RUNS, cleanOutcome, fuzzParams, mutate, mutationArb } from '../helpers/fuzz'

const dir = mkdtempSync(join(tmpdir(), 'paralab-text-fuzz-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let serial = 0
function file(ext: string, bytes: Uint8Array | string): string {
  const path = join(dir, `f${serial++}${ext}`)
  writeFileSync(path, bytes)
  return path
}

function npyBytes(shape: string, values: Float64Array): Uint8Array {
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': ${shape}, }`
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n'
  const b = Buffer.alloc(10 + header.length + values.byteLength)
  b.write('\x93NUMPY', 0, 'latin1')
  b[6] = 1
  b.writeUInt16LE(header.length, 8)
  b.write(header, 10, 'latin1')
  Buffer.from(values.buffer).copy(b, 10 + header.length)
  return b
}

const readEsri = async (path: string, text: string) => {
  const lines = splitLines(text)
  const { header, next } = parseHeader(path, lines)
  return parseGrid(path, lines, next, header)
}

/** Each reader, a small valid file, and how to read it. */
const readers: Record<string, { ext: string; valid: Uint8Array; read: (path: string, bytes: Uint8Array) => Promise<unknown>; from?: number }> = {
  'CSV (the statistics loader)': {
    ext: '.csv',
    valid: Buffer.from('t,x,y\n1,2.5,-3\n2,4e2,7\n3,,1\n4,5,6\n'),
    read: (path) => loadCsv(path, { columns: ['x', 'y'], threads: 2 }),
  },
  '.npy': { ext: '.npy', valid: npyBytes('(2, 3)', Float64Array.of(1, 2, 3, 4, 5, 6.5)), read: (path) => readNpy(path, { layout: 'rows' }), from: 6 },
  'Matrix Market': {
    ext: '.mtx',
    valid: Buffer.from('%%MatrixMarket matrix coordinate integer symmetric\n% a comment\n4 4 4\n1 2 3\n2 3 -1\n3 4 7\n4 1 2\n'),
    read: (path) => readGraph(path, path),
  },
  'Matrix Market, real weights': {
    ext: '.mtx',
    valid: Buffer.from('%%MatrixMarket matrix coordinate real general\n4 4 4\n1 2 0.37\n2 3 -1.5e-3\n3 4 7\n4 1 2.25E+2\n'),
    read: (path) => readGraph(path, path),
  },
  DIMACS: { ext: '.gr', valid: Buffer.from('c a graph\np sp 4 4\na 1 2 3\na 2 3 1\na 3 4 7\na 4 1 2\n'), read: (path) => readGraph(path, path) },
  'CSV edge list, real weights': { ext: '.csv', valid: Buffer.from('source,target,weight\na,b,0.37\nb,c,-2.5\nc,a,7\n"d, e",a,1e-3\n'), read: (path) => readGraph(path, path) },
  'course binary graph': { ext: '.bin', valid: courseGraphBytes(4, [0, 1, 2, 3], [1, 2, 3, 0], [3, 1, 7, 2]), read: (path) => readGraph(path, path) },
  'ESRI ASCII grid': {
    ext: '.asc',
    valid: Buffer.from('ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n1 2 3\n4 -9999 6\n'),
    read: (path, bytes) => readEsri(path, Buffer.from(bytes).toString('latin1')),
  },
}

describe.each(Object.keys(readers))('%s', (name) => {
  const r = readers[name]

  it('the valid file reads', async () => {
    const path = file(r.ext, r.valid)
    expect('ok' in (await cleanOutcome(path, () => r.read(path, r.valid)))).toBe(true)
  })

  it('mutations end in a result or a refusal naming the file, in bounded time and memory', async () => {
    await fc.assert(
      fc.asyncProperty(mutationArb(r.valid.length, r.from), async (mutations) => {
        const bytes = mutate(r.valid, mutations)
        const path = file(r.ext, bytes)
        await cleanOutcome(path, () => r.read(path, bytes), { ms: 5000, bytes: 256 * 2 ** 20 })
      }),
      fuzzParams(Math.max(20, Math.round(FUZZ_RUNS / 2))),
    )
  }, 120_000)
})

describe('real weights', () => {
  // Finite doubles as files write them: shortest round-trip text, %e and %f forms.
  const weight = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }), fc.integer({ min: -(2 ** 30) + 1, max: 2 ** 30 - 1 }))
  const text = fc.tuple(weight, fc.constantFrom('shortest', 'exponential', 'fixed')).map(([w, form]) => ({
    // −0 reads as 0.
    w: (form === 'shortest' ? w : Number(form === 'exponential' ? w.toExponential() : w.toFixed(3))) + 0,
    text: form === 'shortest' ? String(w + 0) : form === 'exponential' ? w.toExponential() : w.toFixed(3),
  }))
  const writers: Record<string, (w: string[]) => string> = {
    '.mtx': (w) => `%%MatrixMarket matrix coordinate real general\n${w.length} ${w.length} ${w.length}\n${w.map((x, i) => `${i + 1} ${((i + 1) % w.length) + 1} ${x}`).join('\n')}\n`,
    '.gr': (w) => `p sp ${w.length} ${w.length}\n${w.map((x, i) => `a ${i + 1} ${((i + 1) % w.length) + 1} ${x}`).join('\n')}\n`,
    '.csv': (w) => `source,target,weight\n${w.map((x, i) => `${i},${(i + 1) % w.length},${x}`).join('\n')}\n`,
  }

  it.each(Object.keys(writers))('%s: each weight reads back as the double its text names; a weight other than an int32 one makes the graph f64, int32 weights keep int32', async (ext) => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 2, maxLength: 12 }), async (weights) => {
        const path = file(ext, writers[ext](weights.map((x) => x.text)))
        const g = await readGraph(path, path)
        const want = weights.map((x) => x.w)
        expect(Array.from(g.w)).toEqual(want)
        const integers = want.every((x) => Number.isInteger(x) && Math.abs(x) < 2 ** 30)
        expect(g.w instanceof Float64Array).toBe(!integers)
      }),
      fuzzParams(Math.max(20, Math.round(FUZZ_RUNS / 2))),
    )
  })

  it('hostile weights (nan, inf, past ±1e300, hex, separators) are refused naming the file and line', async () => {
    const hostile = fc.oneof(
      fc.constantFrom('nan', 'NaN', 'inf', '-inf', 'Infinity', '0x1p3', '0x10', '1_000', '1,5', '1e', '.', '+-1', '1e301', '-1E310', '1e999'),
      fc.double({ min: 1.0000000001e300, noNaN: true, noDefaultInfinity: true }).map((x) => String(x)),
    )
    await fc.assert(
      fc.asyncProperty(hostile, fc.nat(5), fc.constantFrom('.gr', '.mtx', '.csv'), async (bad, at, ext) => {
        const w = ['1', '0.5', '3', '4', '5', '6']
        w[at] = ext === '.csv' && bad.includes(',') ? `"${bad}"` : bad
        const path = file(ext, writers[ext](w))
        const line = at + (ext === '.csv' ? 2 : 3) - (ext === '.gr' ? 1 : 0)
        await expect(readGraph(path, path)).rejects.toThrow(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}: weight .* is (not a number|beyond ±1e\\+300)`))
      }),
      fuzzParams(Math.max(20, Math.round(FUZZ_RUNS / 4))),
    )
  })
})

describe('counts at the boundaries are refused by what the file holds', () => {
  const counts = [...BOUNDARY_COUNTS.filter((c) => c > 6), 2 ** 32, 2 ** 53]
  const refused = async (path: string, read: () => Promise<unknown>) => {
    const out = await cleanOutcome(path, read, { ms: 3000, bytes: 64 * 2 ** 20 })
    expect('refused' in out, `${path} was read`).toBe(true)
    return 'refused' in out ? out.refused.message : ''
  }

  // A vertex count takes no bytes of its own: V = 2^29 with one arc is a graph (the solvers then
  // refuse its V × V matrix by memory); it must only be read without allocating for V.
  const boundedRead = (path: string) => cleanOutcome(path, () => readGraph(path, path), { ms: 3000, bytes: 64 * 2 ** 20 })

  it.each(counts)('p sp V E, with E = %d refused, V = %d read without allocating for it', async (n) => {
    const path = file('.gr', `p sp 4 ${n}\na 1 2 3\n`)
    expect(await refused(path, () => readGraph(path, path))).toMatch(/exceeds|hold at most/)
    await boundedRead(file('.gr', `p sp ${n} 1\na 1 2 3\n`))
  })

  it.each(counts)('the Matrix Market size line with %d', async (n) => {
    for (const size of [`${n} ${n} 1`, `4 4 ${n}`]) {
      const path = file('.mtx', `%%MatrixMarket matrix coordinate integer general\n${size}\n1 2 3\n`)
      await refused(path, () => readGraph(path, path))
    }
  })

  it.each(counts.filter((n) => n < 2 ** 32))('the course binary graph with E = %d refused, V = %d read without allocating for it', async (n) => {
    for (const at of [0, 4]) {
      const bytes = courseGraphBytes(4, [0, 1], [1, 2], [3, 1])
      new DataView(bytes.buffer, bytes.byteOffset).setUint32(at, n, true)
      const path = file('.bin', bytes)
      if (at === 4) await refused(path, () => readGraph(path, path))
      else await boundedRead(path)
    }
  })

  it.each(counts)('a .npy shape of (%d, 3)', async (n) => {
    const path = file('.npy', npyBytes(`(${n}, 3)`, Float64Array.of(1, 2, 3, 4, 5, 6)))
    await refused(path, () => readNpy(path, { layout: 'rows' }))
  })

  it.each(counts)('ESRI ncols or nrows %d', async (n) => {
    for (const text of [`ncols ${n}\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n`, `ncols 2\nnrows ${n}\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n`]) {
      const path = file('.asc', text)
      await refused(path, () => readEsri(path, text))
    }
  })
})

describe('a cancel ends a read within a second', () => {
  it('a DIMACS graph of 60 MB', async () => {
    const lines = ['p sp 100000 4000000']
    for (let i = 0; i < 4_000_000; i++) lines.push(`a ${(i % 100000) + 1} ${((i * 7) % 100000) + 1} ${i % 1000}`)
    const path = file('.gr', lines.join('\n') + '\n')
    const controller = new AbortController()
    const t0 = performance.now()
    setTimeout(() => controller.abort(), 50)
    const e = await readGraph(path, path, undefined, controller.signal).then(
      () => undefined,
      (err: unknown) => err,
    )
    expect(e).toBeInstanceOf(ApiError)
    expect((e as ApiError).code).toBe('cancelled')
    expect(performance.now() - t0).toBeLessThan(1050)
  }, 60_000)

  it('a CSV of 40 MB on the statistics loader', async () => {
    const rows = ['a,b']
    for (let i = 0; i < 2_500_000; i++) rows.push(`${i * 0.5},${-i}`)
    const path = file('.csv', rows.join('\n') + '\n')
    const controller = new AbortController()
    const t0 = performance.now()
    setTimeout(() => controller.abort(), 50)
    const e = await loadCsv(path, { columns: ['a', 'b'], threads: 2, signal: controller.signal }).then(
      () => undefined,
      (err: unknown) => err,
    )
    expect((e as ApiError).code).toBe('cancelled')
    expect(performance.now() - t0).toBeLessThan(1050)
  }, 60_000)
})
