// HDF5 files as h5py writes them and NetCDF files as netCDF4 writes them, option by option
// (test/helpers/hdf5-writers-sweep.py, at set-up), read by Paralab's readers and compared with the
// reference libraries' own reading (test/helpers/hdf5-reference.py: netCDF4 as it reads by default,
// masked and scaled, for NetCDF files; h5py for other HDF5 files): every numeric dtype in both byte
// orders, compact, contiguous and chunked layouts with edge chunks, gzip, lzf, shuffle, fletcher32,
// scaleoffset, szip and n-bit filters, fill values written and never written, resizable and empty
// datasets; NETCDF3_CLASSIC, NETCDF3_64BIT_OFFSET, NETCDF3_64BIT_DATA, NETCDF4_CLASSIC and NETCDF4
// with _FillValue, missing_value, valid_range, valid_min, valid_max, _Unsigned, scale_factor and
// add_offset, record variables and fill modes. Each variable is read equal, value for value (masked
// cells counted as missing), or refused naming the file, the variable and the feature, as listed
// below. The HDF5 reader runs on a worker thread: `npm run build` first.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { type ArrayFile, arrayFormatOf, checkElements, findDataset, openArrayFile, readPieces } from '../../src/main/io/hdf5/array-file'
import { readColumns } from '../../src/main/workloads/stats/read-datasets'

const dir = mkdtempSync(join(tmpdir(), 'paralab-hdf5-sweep-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Cell = number | string | null
interface RefVariable {
  path: string
  shape: number[]
  values: Cell[]
}
let reference: Record<string, RefVariable[]>

beforeAll(() => {
  execFileSync('/usr/bin/python3', ['-W', 'ignore', resolve('test/helpers/hdf5-writers-sweep.py'), dir], { stdio: 'pipe' })
  execFileSync('/usr/bin/python3', ['-W', 'ignore', resolve('test/helpers/hdf5-reference.py'), dir, join(dir, 'ref.json')], { stdio: 'pipe' })
  reference = JSON.parse(readFileSync(join(dir, 'ref.json'), 'utf8'))
}, 60_000)

const num = (c: Cell): number => (typeof c === 'string' ? Number(c) : (c as number))
const NC = ['netcdf3_classic', 'netcdf3_64bit_offset', 'netcdf3_64bit_data', 'netcdf4_classic', 'netcdf4'].map((f) => `${f}.nc`)
const everyNc = (path: string, why: RegExp) => Object.fromEntries(NC.map((f) => [`${f} ${path}`, why]))

const BEYOND = /beyond ±9007199254740992: no double holds it exactly/

/** Refused variables, `file dataset` → what the message must say. */
const REFUSED: Record<string, RegExp> = {
  // A variable of no rows holds no values for statistics.
  'fill.h5 /empty': /the datasets \/empty are empty/,
  // Fill time "never": what was never written holds nothing (h5py reads whatever memory held).
  'fill.h5 /fill_never': /element \[8\] was never written and has no fill value/,
  'unusual.h5 /i12_in_32': /dataset \/i12_in_32 \(unknown, scalar\): the HDF5 library cannot open it \(datatype has unusually large # of unused bits/,
  'filters.h5 /lzf': /compressed with the lzf filter \(32000\), a plugin the HDF5 library here does not have/,
  // Not-a-number cells that no fill value masks, refused as a CSV's are.
  ...everyNc('/nan_f4', /element \[3\] is NaN; every value must be a finite number/),
  'types.h5 /nan': /element \[1\] is NaN/,
  // 64-bit integers no double holds: beyond ±2^53, and not masked (a default fill under an explicit
  // _FillValue is a value; _Unsigned makes negative int64s huge).
  'types.h5 /wide/i8': /element \[1\] is -9223372036854775808, beyond/,
  'types.h5 /wide/u8': /element \[1\] is 18446744073709551615, beyond/,
  'types.h5 /wide/u8_2d': /element \[1, 0\] is 1152921504606846977, beyond/,
  // An integer scale of integer cells: numpy's integer arithmetic wraps (int16 × 3 here).
  ...everyNc('/packed_intscale_i2', /packed values whose scale_factor is int16 on int16 cells \(netCDF4 unpacks them in integer arithmetic/),
  ...Object.fromEntries(['netcdf3_64bit_data.nc', 'netcdf4.nc'].flatMap((f) => ['/fillvalue_i8', '/fillvalue_u8', '/unsigned_i8', '/unsigned_fill_i8'].map((v) => [`${f} ${v}`, BEYOND]))),
}

interface Outcome {
  key: string
  equal?: true
  refused?: string
  differs?: string
}

/** Reads a variable as statistics (1-D) or correlation (2-D) read theirs, missing cells left out and counted. */
async function readVariable(f: ArrayFile, v: RefVariable): Promise<{ values: number[]; missing: number }> {
  if (v.shape.length === 1) {
    const col = (await readColumns(f, [v.path], {})).columns[v.path]
    return { values: [...col.values], missing: col.missing }
  }
  const d = findDataset(f, v.path, [2], '--dataset')
  checkElements(f, d)
  const values: number[] = []
  let missing = 0
  await readPieces(f, d, { missing: 'skip' }, (_first, _rows, piece, skipped) => {
    values.push(...piece)
    missing += skipped
  })
  return { values, missing }
}

async function check(f: ArrayFile, key: string, v: RefVariable): Promise<Outcome> {
  try {
    const got = await readVariable(f, v)
    const kept = v.values.filter((c) => c !== null)
    if (kept.some((c) => typeof c === 'string' && /^-?\d+$/.test(c))) return { key, differs: 'read, though the reference holds a 64-bit integer beyond ±2^53 that no double holds' }
    const want = kept.map(num)
    const missing = v.values.length - want.length
    if (got.missing !== missing) return { key, differs: `${got.missing} missing, the reference ${missing}` }
    const i = want.findIndex((w, k) => !Object.is(w, got.values[k]))
    if (got.values.length !== want.length || i >= 0) return { key, differs: `value ${i}: ${got.values[i]} vs ${want[i]} (${got.values.length} values, ${want.length})` }
    return { key, equal: true }
  } catch (e) {
    if (!(e instanceof ApiError)) return { key, differs: `ended in ${String(e)}` }
    return { key, refused: e.message }
  }
}

describe('HDF5 and NetCDF files as h5py and netCDF4 write them, read as they read them', () => {
  let outcomes: Outcome[] = []
  beforeAll(async () => {
    for (const [file, vars] of Object.entries(reference)) {
      const full = join(dir, file)
      const f = await openArrayFile(file, full, (await arrayFormatOf(file, full))!)
      try {
        for (const v of vars) outcomes.push(await check(f, `${file} ${v.path}`, v))
      } finally {
        await f.close()
      }
    }
    outcomes = outcomes.sort((a, b) => a.key.localeCompare(b.key))
  }, 120_000)

  it('reads every file written', () => {
    expect(Object.keys(reference).sort()).toEqual(['fill.h5', 'filters.h5', 'layouts.h5', 'types.h5', 'unusual.h5', ...NC].sort())
    expect(outcomes.length).toBeGreaterThan(550)
  })

  it('gives no variable other numbers than the reference', () => {
    expect(outcomes.filter((o) => o.differs)).toEqual([])
  })

  it('refuses only the listed variables, each naming the file, the variable and the feature', () => {
    const refused = outcomes.filter((o) => o.refused)
    expect(refused.map((o) => o.key).sort()).toEqual(Object.keys(REFUSED).sort())
    for (const o of refused) {
      const [file, path] = o.key.split(' ')
      expect(o.refused!.startsWith(`${file}: `), o.refused).toBe(true)
      expect(o.refused).toContain(path)
      expect(o.refused).toMatch(REFUSED[o.key])
    }
  })
})
