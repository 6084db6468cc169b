// What HDF5 and NetCDF files may claim, and what the readers do with it: a dataset never written
// has no values (refused by name), NetCDF's fill values are missing values (counted by statistics,
// refused by element by correlation), a kilobyte file announcing 4 GB of fill values is refused
// before anything is allocated, sizes at the 2^29…2^32 boundaries are judged by arithmetic, and a
// cancel ends a read within a second. Files written at set-up by h5py and netCDF4
// (test/helpers/hdf5-fixtures.py); classic headers built here byte by byte. `npm run build` first.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { MAX_ELEMENTS, checkElements, elementsRefusal, openArrayFile } from '../../src/main/io/hdf5/array-file'
import { MAX_EXPANSION, storageBound } from '../../src/main/io/hdf5/datasets'
import { checkInFile, readNetcdfHeader } from '../../src/main/io/hdf5/netcdf-classic'
import { readDatasetColumns } from '../../src/main/workloads/stats/read-datasets'
import { readDatasetSeries } from '../../src/main/workloads/correlation/read-dataset'
import { cleanOutcome } from '../helpers/fuzz'
import { failure } from '../helpers/failure'

const dir = mkdtempSync(join(tmpdir(), 'paralab-hdf5-hostile-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)

beforeAll(() => {
  execFileSync('/usr/bin/python3', [resolve('test/helpers/hdf5-fixtures.py'), dir], { stdio: 'pipe' })
}, 120_000)

const columns = (name: string, cols: string[], signal?: AbortSignal) => readDatasetColumns(at(name), at(name), name.endsWith('.h5') || name === 'filled.nc' ? 'hdf5' : 'netcdf', cols, { signal })
const series = (name: string, dataset: string) =>
  readDatasetSeries(at(name), at(name), name.endsWith('.h5') || name === 'filled.nc' ? 'hdf5' : 'netcdf', { layout: 'rows', precision: 'f64', dataset, checkShape: () => {} })

describe('values no one wrote', () => {
  it('refuses a dataset that was never written and has no fill value, by name, the same on every run', async () => {
    for (let run = 0; run < 2; run++) {
      const e = await failure(columns('unwritten.h5', ['/never']))
      expect(e.message).toBe(`${at('unwritten.h5')}: dataset /never was never written: it holds no values`)
    }
  })

  it('refuses the first element of a chunk never written, and reads the chunks that were', async () => {
    const e = await failure(columns('unwritten.h5', ['/part']))
    expect(e.message).toBe(`${at('unwritten.h5')}: dataset /part, element [16] was never written and has no fill value: it holds no value`)
    const ok = await columns('unwritten.h5', ['/written'])
    expect(ok.columns['/written'].values.length).toBe(200)
  })

  it("reads NetCDF's fill values as missing values, which statistics count (correlation's refusal by element: hdf5-conformance)", async () => {
    const t = await columns('filled.nc', ['/v', '/w'])
    expect([...t.columns['/v'].values]).toEqual([1, 2, 3, 4])
    expect(t.columns['/v'].missing).toBe(6)
    // No _FillValue: the type's default fill (9.969209968386869e36) is NetCDF's missing value.
    expect([...t.columns['/w'].values]).toEqual([1, 2, 3])
    expect(t.columns['/w'].missing).toBe(7)
    for (const v of [1, 2, 5]) {
      const c = await columns(`small-cdf${v}.nc`, ['/filled'])
      expect([c.columns['/filled'].values.length, c.columns['/filled'].missing]).toEqual([150, 50])
    }
  })

  it('refuses a kilobyte file announcing 5·10^7 × 10 float64 of fill values at once, naming the sizes', async () => {
    const o = await cleanOutcome(at('claims.h5'), () => series('claims.h5', '/x'), { ms: 5_000, bytes: 256 * 2 ** 20 })
    expect('refused' in o && o.refused.message).toMatch(/dataset \/x announces 5\.000e\+8 elements \(4\.0 GB\) but the file has 1\.\d KB, which hold at most 1\.\d KB of them: most of it was never written and holds no values/)
    const c = await cleanOutcome(at('claims.h5'), () => columns('claims.h5', ['/col']), { ms: 5_000, bytes: 256 * 2 ** 20 })
    expect('refused' in c && c.refused.message).toMatch(/dataset \/col announces 5\.000e\+7 elements \(400\.0 MB\)/)
  })
})

describe('sizes at the boundaries, by arithmetic', () => {
  const plenty = 2 ** 50
  it('holds up to 2^32 − 1 elements in one array and refuses 2^32, naming the count', () => {
    for (const n of [2 ** 29, 2 ** 30, 2 ** 31, 2 ** 32 - 1]) {
      expect(elementsRefusal([n], plenty)).toBeUndefined()
      expect(elementsRefusal([n / 2 ** 9, 2 ** 9], plenty)).toBeUndefined()
    }
    expect(MAX_ELEMENTS).toBe(2 ** 32 - 1)
    expect(elementsRefusal([2 ** 32], plenty)).toMatch(/announces 4294967296 = 4\.295e\+9 elements \(34\.4 GB as f64\); .* one array holds at most 4294967295/)
    expect(elementsRefusal([2 ** 16, 2 ** 16], plenty)).toMatch(/65536 × 65536 = 4\.295e\+9 elements/)
    // A product past 2^53 is still refused, not wrapped.
    expect(elementsRefusal([2 ** 32 - 1, 2 ** 32 - 1, 2 ** 32 - 1], plenty)).toMatch(/7\.923e\+28 elements/)
  })

  it('refuses what the memory available cannot hold, naming both', () => {
    expect(elementsRefusal([2 ** 29], 2 ** 32)).toBeUndefined() // 2^29 f64 are exactly 4 GiB
    expect(elementsRefusal([2 ** 29 + 1], 2 ** 32)).toMatch(/\(4\.3 GB as f64\); 4\.3 GB are available/)
    expect(elementsRefusal([2 ** 30], 2 ** 32)).toMatch(/1073741824 = 1\.074e\+9 elements \(8\.6 GB as f64\)/)
  })

  it("bounds an HDF5 dataset's elements by the file's bytes: as they are, or deflate's largest expansion", () => {
    expect(storageBound(2 ** 29, 8, 2 ** 32, false)).toBeUndefined()
    expect(storageBound(2 ** 29 + 1, 8, 2 ** 32, false)).toMatch(/announces 5\.369e\+8 elements \(4\.3 GB\) but the file has 4\.3 GB/)
    expect(storageBound(2 ** 31, 8, 2 ** 23, true)).toMatch(/which hold at most 8\.7 GB of them compressed/)
    expect(storageBound(2 ** 31, 1, Math.ceil(2 ** 31 / MAX_EXPANSION), true)).toBeUndefined()
    expect(storageBound(2 ** 32, 8, 1400, true)).toMatch(/\(34\.4 GB\) but the file has 1\.4 KB/)
  })

  /** A classic NetCDF header: one dimension `x`, one variable `v` over it (and a record variable over `t` when `records`). */
  function cdf(version: 1 | 2 | 5, opts: { numrecs?: number | bigint; length: number | bigint; type?: number; begin?: number | bigint; records?: boolean }): Buffer {
    const wide = version === 5
    const parts: Buffer[] = []
    const u32 = (n: number) => parts.push(Buffer.from(new Uint8Array(new Uint32Array([0]).buffer))) && parts[parts.length - 1].writeUInt32BE(n >>> 0)
    const u64 = (n: number | bigint) => {
      const b = Buffer.alloc(8)
      b.writeBigUInt64BE(BigInt(n))
      parts.push(b)
    }
    const count = (n: number | bigint) => (wide ? u64(n) : u32(Number(n)))
    const name = (s: string) => {
      count(s.length)
      parts.push(Buffer.from(s.padEnd(Math.ceil(s.length / 4) * 4, '\0')))
    }
    parts.push(Buffer.from(['C'.charCodeAt(0), 'D'.charCodeAt(0), 'F'.charCodeAt(0), version]))
    if (wide) u64(opts.numrecs ?? 0)
    else u32(Number(opts.numrecs ?? 0))
    u32(0x0a)
    count(opts.records ? 2 : 1)
    name('x')
    count(opts.length)
    if (opts.records) {
      name('t')
      count(0)
    }
    u32(0)
    count(0) // no global attributes
    u32(0x0b)
    count(opts.records ? 2 : 1)
    const variable = (n: string, dim: number) => {
      name(n)
      count(1)
      count(dim)
      u32(0)
      count(0) // no attributes
      u32(opts.type ?? 6)
      count(0)
      if (version === 1) u32(Number(opts.begin ?? 0))
      else u64(opts.begin ?? 0)
    }
    variable('v', 0)
    if (opts.records) variable('r', 1)
    return Buffer.concat(parts)
  }

  async function header(name: string, bytes: Buffer) {
    writeFileSync(at(name), bytes)
    const fh = await open(at(name))
    try {
      return await readNetcdfHeader(name, fh, bytes.length)
    } finally {
      await fh.close()
    }
  }

  it('refuses classic variables whose data would lie past the file, at every boundary and version, naming the byte', async () => {
    for (const version of [1, 2, 5] as const)
      for (const length of [2 ** 29, 2 ** 30, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1]) {
        const bytes = cdf(version, { length, begin: 200 })
        const h = await header(`dim-${version}-${length}.nc`, bytes)
        const v = h.variables[0]
        expect(v.info.shape).toEqual([length])
        expect(() => checkInFile('f.nc', h, v, bytes.length)).toThrow(`f.nc: variable /v (float64, ${length}) announces data up to byte ${200 + length * 8}; the file has ${bytes.length} (truncated?)`)
      }
  })

  it('refuses CDF-5 sizes past 2^53 and counts past what the header can hold, naming them', async () => {
    const big = await failure(header('dim-2p63.nc', cdf(5, { length: 2n ** 63n })))
    expect(big.message).toMatch(/dim-2p63\.nc: not a readable NetCDF file: a size of 9223372036854775808/)
    const b = cdf(1, { length: 4 })
    b.writeUInt32BE(2 ** 32 - 1, 12) // the count of dimensions
    const many = await failure(header('dims-2p32.nc', b))
    expect(many.message).toMatch(/dims-2p32\.nc: not a readable NetCDF file: 4294967295 dimensions announced at byte 16; the file has \d+ bytes/)
  })

  it('computes record sizes and record counts at the boundaries: 2^32 − 1 records of a variable', async () => {
    for (const version of [1, 2, 5] as const) {
      const bytes = cdf(version, { length: 3, numrecs: 2 ** 32 - 1, begin: 100, records: true })
      const h = await header(`recs-${version}.nc`, bytes)
      expect(h.recordBytes).toBe(8)
      const r = h.variables[1]
      expect(r.info.shape).toEqual([2 ** 32 - 1])
      expect(() => checkInFile('f.nc', h, r, bytes.length)).toThrow(`announces data up to byte ${100 + (2 ** 32 - 2) * 8 + 8}`)
    }
  })

  it('checks a variable against the file before its elements against the memory', async () => {
    const f = await openArrayFile(at('small-cdf5.nc'), at('small-cdf5.nc'), 'netcdf')
    try {
      const d = f.datasets.find((x) => x.path === '/mat')!
      expect(() => checkElements(f, d, 40 * 6 * 8 - 1)).toThrow(/variable \/mat announces 40 × 6 = 2\.400e\+2 elements/)
      expect(() => checkElements(f, d, 40 * 6 * 8)).not.toThrow()
    } finally {
      await f.close()
    }
  })
})

describe('cancel', () => {
  // Once while the file is opened and listed, once after the first piece of values was read.
  for (const name of ['slow.h5', 'slow.nc'])
    for (const when of ['opening', 'reading'] as const)
      it(`ends a read of ${name} within a second, cancelled while ${when}`, async () => {
        const ac = new AbortController()
        let aborted = 0
        const abort = () => {
          if (aborted) return
          aborted = performance.now()
          ac.abort()
        }
        const progress = (f: number) => void (when === 'reading' && f > 0 && abort())
        const read = readDatasetColumns(at(name), at(name), name.endsWith('.h5') ? 'hdf5' : 'netcdf', ['/col'], { signal: ac.signal, progress })
        if (when === 'opening') setTimeout(abort, 50)
        const e = await read.then(
          () => undefined,
          (x: unknown) => x,
        )
        const ms = performance.now() - aborted
        expect(aborted).toBeGreaterThan(0)
        expect(e).toBeInstanceOf(ApiError)
        expect((e as ApiError).code).toBe('cancelled')
        expect(ms).toBeLessThan(1000)
      }, 30_000)
})
