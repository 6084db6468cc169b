// Property-based fuzzing of the HDF5 (h5wasm, on its thread) and classic NetCDF readers: mutations of
// small valid files (h5py- and netCDF4-written at set-up: HDF5 contiguous and chunked + deflate,
// CDF-1, CDF-2, CDF-5) — flipped bytes, truncations, counts and offsets set to 0, 2^29, 2^31 − 1,
// 2^32 … — each end in a result or a refusal naming the file, within time and memory bounds; the
// unmutated files give the reference values. Seeded (test/helpers/fuzz.ts); PARALAB_FUZZ_RUNS
// raises the count. `npm run build` first.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrayFormatOf, openArrayFile } from '../../src/main/io/hdf5/array-file'
import { readColumns } from '../../src/main/workloads/stats/read-datasets'
import { readSeries } from '../../src/main/workloads/correlation/read-dataset'
import { FUZZ_RUNS, cleanOutcome, fuzzParams, mutate, mutationArb } from '../helpers/fuzz'

const dir = mkdtempSync(join(tmpdir(), 'paralab-hdf5-fuzz-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)

/** Reference values: the 1-D column and the 40 × 6 matrix every fixture holds. */
let col: Float64Array
let mat: Float64Array

function npy(name: string): Float64Array {
  const b = readFileSync(at(name))
  const header = b.readUInt16LE(8)
  const data = b.subarray(10 + header)
  return new Float64Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength))
}

beforeAll(() => {
  execFileSync('/usr/bin/python3', [resolve('test/helpers/hdf5-fixtures.py'), dir, '--small'], { stdio: 'pipe' })
  col = npy('col.npy')
  mat = npy('mat.npy')
}, 120_000)

/** Reads `/col` as statistics does and `/mat` as correlation does (the file opened once); the values of each. */
async function readBoth(path: string): Promise<[Float64Array, Float64Array]> {
  const format = await arrayFormatOf(path, path)
  if (!format) throw new Error(`${path}: not known as HDF5 or NetCDF`)
  const f = await openArrayFile(path, path, format)
  try {
    const t = await readColumns(f, ['/col'], {})
    const s = await readSeries(f, { layout: 'rows', precision: 'f64', dataset: '/mat', checkShape: () => {} })
    return [t.columns['/col'].values, s.values]
  } finally {
    await f.close()
  }
}

// Each HDF5 case starts a thread and the library (about a second on a loaded machine): fewer of
// them by default than of the classic files, which take milliseconds.
const FILES: [string, number][] = [
  ['small.h5', Math.max(8, Math.round(FUZZ_RUNS / 12))],
  ['small-chunked.h5', Math.max(8, Math.round(FUZZ_RUNS / 12))],
  ['small-cdf1.nc', FUZZ_RUNS],
  ['small-cdf2.nc', FUZZ_RUNS],
  ['small-cdf5.nc', FUZZ_RUNS],
]

describe('mutated HDF5 and classic NetCDF files', () => {
  for (const [name, runs] of FILES) {
    it(`${name} as written gives the reference values`, async () => {
      const [c, m] = await readBoth(at(name))
      expect([...c]).toEqual([...col])
      expect([...m]).toEqual([...mat])
    })

    it(`${name}, mutated, ends in a result or a refusal naming it, within bounds (${runs} cases)`, async () => {
      const bytes = new Uint8Array(readFileSync(at(name)))
      let refused = 0
      let n = 0
      await fc.assert(
        fc.asyncProperty(mutationArb(bytes.length, 8), async (mutations) => {
          const path = at(`case-${n++}-${name}`)
          writeFileSync(path, mutate(bytes, mutations))
          try {
            const o = await cleanOutcome(path, () => readBoth(path), { ms: 15_000, bytes: 512 * 2 ** 20 })
            if ('refused' in o) refused++
            else {
              // A result keeps the shapes the header announced to the readers' callers.
              expect(o.ok[1].length).toBe(240)
            }
          } finally {
            rmSync(path, { force: true })
          }
        }),
        fuzzParams(runs),
      )
      expect(n).toBe(runs)
      expect(refused).toBeGreaterThan(0)
    }, 300_000)
  }
})
