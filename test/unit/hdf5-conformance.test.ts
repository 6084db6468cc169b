// Every HDF5, NetCDF-4 and classic NetCDF file of ../shared/corpora/hdf5 (other projects' own test
// files), read with Paralab's readers at the level that returns values: each numeric 1-D variable as
// a statistics column, each 2-D one as correlation's series. The reference is run here, at set-up:
// netCDF4 (which masks fill values and the valid range) for NetCDF files, h5py for other HDF5 files
// (test/helpers/hdf5-reference.py). Each must be equal, value for value (missing cells counted as
// missing by statistics, refused by element by correlation), or refused naming the file, the
// dataset and the feature: the refused ones are listed below with their reasons, as in
// docs/formats.md. The HDF5 reader runs on a worker thread: `npm run build` first.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { type ArrayFile, arrayFormatOf, openArrayFile } from '../../src/main/io/hdf5/array-file'
import { readColumns } from '../../src/main/workloads/stats/read-datasets'
import { readSeries } from '../../src/main/workloads/correlation/read-dataset'

const CORPUS = resolve('../shared/corpora/hdf5')
const dir = mkdtempSync(join(tmpdir(), 'paralab-hdf5-conf-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Cell = number | string | null
interface RefVariable {
  path: string
  shape: number[]
  values?: Cell[]
  error?: string
}
let reference: Record<string, RefVariable[] | { error: string }>

const num = (c: Cell): number => (typeof c === 'string' ? Number(c) : (c as number))

beforeAll(() => {
  execFileSync('/usr/bin/python3', [resolve('test/helpers/hdf5-reference.py'), CORPUS, join(dir, 'ref.json')], { stdio: 'pipe' })
  reference = JSON.parse(readFileSync(join(dir, 'ref.json'), 'utf8'))
}, 60_000)

/** Refused variables, `file dataset` → what the message must say (the feature). */
const REFUSED: Record<string, RegExp> = {
  // Correlation refuses a missing cell by element (statistics count them).
  'Unidata+netcdf-c/nc_test4/ref_hdf5_compat2.nc /_nc4_non_coord_y': /element \[0, 0\] is missing \(9\.969209968386869e\+36: fill value/,
  'Unidata+netcdf-c/unit_test/nctest_netcdf4_classic.nc /bb': /element \[0, 0\] is missing \(-4: .*valid range 0…100/,
  'Unidata+netcdf-c/unit_test/nctest_netcdf4_classic.nc /zz': /element \[0, 0\] is missing \(-127: fill value/,
  'Unidata+netcdf-c/unit_test/nctest_netcdf4_classic.nc /vv': /element \[0, 0\] is missing \(-32767: fill value/,
  'Unidata+netcdf-c/unit_test/nctest_netcdf4_classic.nc /uu': /element \[0, 0\] is missing \(-2147483647: fill value.*valid range −∞…1000/,
  'Unidata+netcdf-c/unit_test/nctest_netcdf4_classic.nc /tu': /element \[0, 0\] is missing \(9\.969209968386869e\+36: fill value/,
  'Unidata+netcdf-c/unit_test/nctest_netcdf4_classic.nc /yet_another_variable': /element \[0, 0\] is missing \(9\.969209968386869e\+36: fill value/,
  'Unidata+netcdf4-python/test/CRM032_test1.nc /MSLP': /variable \/MSLP, element \[0, 0\] is missing \(9\.969209968386869e\+36: fill value/,
  // Infinities are refused as a CSV's are (every value must be a finite number).
  'Unidata+netcdf-c/ncdump/ref_nc_test_netcdf4_4_0.nc /f3': /element \[2\] is -Infinity; every value must be a finite number/,
  'Unidata+netcdf-c/ncdump/ref_nc_test_netcdf4_4_0.nc /f4': /element \[2\] is -Infinity; every value must be a finite number/,
  // An enum (of uint64) is not read as numbers.
  'Unidata+netcdf-c/ncdump/ref_tst_irish_rover.nc /in_the_hold_of_the_Irish_Rover': /\(enum, 4\): not numeric/,
  // A variable of no rows holds no values for statistics.
  ...Object.fromEntries(['/Hdg_1215', '/P_1', '/Ptch_1216', '/Roll_1217', '/Tx_1211', '/time'].map((v) => [`Unidata+netcdf4-python/test/netcdf_dummy_file.nc ${v}`, /the datasets \/\w+ are empty/])),
  // _Unsigned = "false": signed to netcdf-c, unsigned to netCDF4-python.
  'Unidata+netcdf4-python/test/ubyte.nc /sb2': /variable \/sb2 \(int8, 2\): _Unsigned is not "true"/,
}

interface Outcome {
  file: string
  path: string
  equal?: true
  refused?: string
  differs?: string
}

/** Reads one variable as statistics and correlation read theirs (from the file opened once) and compares it with the reference. */
async function check(f: ArrayFile, file: string, v: RefVariable): Promise<Outcome> {
  const at = { file, path: v.path }
  const ref = v.values!
  try {
    if (v.shape.length === 1) {
      const table = await readColumns(f, [v.path], {})
      const col = table.columns[v.path]
      const want = ref.filter((c) => c !== null).map(num)
      const missing = ref.length - want.length
      if (col.missing !== missing) return { ...at, differs: `${col.missing} missing, the reference ${missing}` }
      const got = [...col.values]
      const i = want.findIndex((w, k) => !Object.is(w, got[k]))
      if (got.length !== want.length || i >= 0) return { ...at, differs: `value ${i}: ${got[i]} vs ${want[i]} (${got.length} values, ${want.length})` }
      return { ...at, equal: true }
    }
    const m = v.shape[0]
    const n = v.shape[1]
    const series = await readSeries(f, { layout: 'rows', precision: 'f64', dataset: v.path, checkShape: () => {} })
    if (ref.some((c) => c === null)) return { ...at, differs: 'read although the reference masks cells' }
    const got = [...series.values]
    const i = ref.findIndex((w, k) => !Object.is(num(w), got[k]))
    if (got.length !== m * n || i >= 0) return { ...at, differs: `value ${i}: ${got[i]} vs ${num(ref[i])}` }
    return { ...at, equal: true }
  } catch (e) {
    if (!(e instanceof ApiError)) return { ...at, differs: `ended in ${String(e)}` }
    return { ...at, refused: e.message }
  }
}

describe('the HDF5 and NetCDF conformance files read as netCDF4 and h5py read them', () => {
  let outcomes: Outcome[] = []
  beforeAll(async () => {
    for (const [file, vars] of Object.entries(reference)) {
      expect(Array.isArray(vars), `${file}: the reference reads it (${JSON.stringify(vars)})`).toBe(true)
      if ((vars as RefVariable[]).length === 0) continue
      const full = join(CORPUS, file)
      const f = await openArrayFile(full, full, (await arrayFormatOf(full, full))!)
      try {
        for (const v of vars as RefVariable[]) {
          expect(v.error, `${file} ${v.path}: the reference reads it`).toBeUndefined()
          outcomes.push(await check(f, file, v))
        }
      } finally {
        await f.close()
      }
    }
    outcomes = outcomes.sort((a, b) => `${a.file} ${a.path}`.localeCompare(`${b.file} ${b.path}`))
  }, 120_000)

  it('reads every file the corpus holds', () => {
    expect(Object.keys(reference).length).toBeGreaterThanOrEqual(25)
    expect(outcomes.length).toBeGreaterThan(60)
  })

  it('gives no variable other numbers than the reference', () => {
    expect(outcomes.filter((o) => o.differs)).toEqual([])
  })

  it('refuses only the listed variables, each naming the file, the variable and the feature', () => {
    const refused = outcomes.filter((o) => o.refused)
    expect(refused.map((o) => `${o.file} ${o.path}`).sort()).toEqual(Object.keys(REFUSED).sort())
    for (const o of refused) {
      expect(o.refused).toContain(join(CORPUS, o.file))
      expect(o.refused).toContain(o.path)
      expect(o.refused).toMatch(REFUSED[`${o.file} ${o.path}`])
    }
  })

  it('reads the largest doubles exactly (ref_nc_test_netcdf4_4_0.nc /d1, /d2)', () => {
    const d = outcomes.filter((o) => o.file.endsWith('ref_nc_test_netcdf4_4_0.nc') && (o.path === '/d1' || o.path === '/d2'))
    expect(d.map((o) => o.equal)).toEqual([true, true])
    const ref = reference['Unidata+netcdf-c/ncdump/ref_nc_test_netcdf4_4_0.nc'] as RefVariable[]
    expect(Math.min(...ref.find((v) => v.path === '/d2')!.values!.map(num))).toBeLessThan(-1.797e308)
  })
})
