// HDF5 and NetCDF inputs, with fixtures written at set-up by the reference libraries (Debian's
// python3-h5py and python3-netcdf4): correlation on an HDF5, NetCDF-4 and classic NetCDF (CDF-1,
// CDF-2, CDF-5) copy of a .npy data set gives the .npy's result, statistics on copies of the
// accelerometer CSV give the CSV's; and every bad input is refused naming the file and the dataset.
// The HDF5 reader runs on a worker thread: `npm run build` first.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CorrelationParams, correlationWorkload } from '../../src/shared/workloads/correlation'
import { type StatsParams, statsWorkload } from '../../src/shared/workloads/stats'
import { validateParams } from '../../src/shared/workloads/schema'
import { loadSeries } from '../../src/main/workloads/correlation/load-series'
import { runCorrelationJob } from '../../src/main/workloads/correlation/run-correlation'
import { runStatsJob } from '../../src/main/workloads/stats/run-stats'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import { sniffFile } from '../../src/main/io/sniff'
import { failure } from '../helpers/failure'
import { CLI } from '../helpers/serve'
import { jobContext } from '../helpers/job-context'

const dir = mkdtempSync(join(tmpdir(), 'paralab-hdf5-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const ACC = '/work/shared/data/accelerometer/ACC_016_head.csv'
const M = 12
const N = 301

// Written by the reference libraries from the .npy and the CSV: every dtype, chunked and
// compressed, record (unlimited) and fixed dimensions, and the bad datasets of the catalogue.
const FIXTURES = String.raw`
import sys, numpy as np, h5py, netCDF4
d = sys.argv[1]
w = np.load(d + '/walks.npy')              # N x M float32: a series per column
w64 = w.astype('<f8')
acc = np.genfromtxt(sys.argv[2], delimiter=',', names=True, usecols=(1, 2, 3))
with h5py.File(d + '/walks.h5', 'w') as f:
    f.create_dataset('/cluster/walks', data=w64, chunks=(37, 5), compression='gzip', shuffle=True)
    f.create_dataset('/cluster/walks_f4_be', data=w.astype('>f4'))
    f.create_dataset('/cluster/rows', data=np.ascontiguousarray(w64.T))
    f.create_dataset('/ints/i8', data=np.array([[1, -2], [3, 4], [5, 7]], dtype='i1'))
    f.create_dataset('/ints/u64', data=np.array([[1, 2], [3, 5], [8, 13]], dtype='<u8'))
    f.create_dataset('/names', data=np.array([b'a', b'b']))
    f.create_dataset('/records', data=np.zeros(4, dtype=[('x', '<f8'), ('y', '<i4')]))
    f.create_dataset('/cube', data=np.zeros((2, 3, 4)))
    f.create_dataset('/huge', shape=(10**6, 10**6), dtype='<f8', chunks=(1000, 1000))
    f.create_dataset('/hugecolumn', shape=(10**12,), dtype='<f8', chunks=(10**6,))
    bad = w64.copy(); bad[5, 3] = np.nan
    f.create_dataset('/withnan', data=bad)
    f['/outside'] = h5py.ExternalLink(d + '/other.h5', '/secret')
    # a group hard-linked inside itself: a cycle
    loop = f.create_group('/loop')
    loop['self'] = loop
    # raw data kept in another file, and a dataset mapped from another file's
    open(d + '/other.bin', 'wb').write(np.arange(3, dtype='<f8').tobytes())
    f.create_dataset('/stored_outside', shape=(3,), dtype='<f8', external=[(d + '/other.bin', 0, 24)])
    lay = h5py.VirtualLayout(shape=(3, 3), dtype='<f8')
    lay[:] = h5py.VirtualSource(d + '/other.h5', 'secret', shape=(3, 3))
    f.create_virtual_dataset('/virtual', lay)
with h5py.File(d + '/other.h5', 'w') as f:
    f.create_dataset('/secret', data=np.ones((3, 3)))
# Larger than one piece (2 MiB of f64): read in several, across chunk boundaries.
big = np.cumsum(np.random.default_rng(3).standard_normal((3001, 120)), axis=0)
np.save(d + '/big.npy', big)
with h5py.File(d + '/big.h5', 'w') as f:
    f.create_dataset('/big', data=big, chunks=(37, 5), compression='gzip', shuffle=True)
    f.create_dataset('/big_rows', data=np.ascontiguousarray(big.T), chunks=(7, 1000), compression='gzip')
with netCDF4.Dataset(d + '/big.nc', 'w', format='NETCDF3_64BIT_DATA') as nc:
    nc.createDimension('t', None)
    nc.createDimension('s', 120)
    nc.createVariable('big', 'f8', ('t', 's'))[:] = big
    nc.createVariable('flag', 'i1', ('t',))[:] = np.arange(3001) % 2
with h5py.File(d + '/acc.h5', 'w') as f:
    for k in ('acc_x', 'acc_y', 'acc_z'):
        f.create_dataset('/acc/' + k, data=acc[k].astype('<i2'), chunks=(16,), compression='gzip')
for fmt, name in (('NETCDF4', 'nc4'), ('NETCDF3_CLASSIC', 'cdf1'), ('NETCDF3_64BIT_OFFSET', 'cdf2'), ('NETCDF3_64BIT_DATA', 'cdf5')):
    with netCDF4.Dataset(d + '/walks-' + name + '.nc', 'w', format=fmt) as nc:
        nc.createDimension('time', None)
        nc.createDimension('series', M := w.shape[1])
        nc.createDimension('fixed', w.shape[0])
        nc.createVariable('label', 'S1', ('series',))
        v = nc.createVariable('walks', 'f8', ('time', 'series'), **({'zlib': True} if fmt == 'NETCDF4' else {}))
        v[:] = w64
        # a second record variable: records interleave the two
        s = nc.createVariable('step', 'i2', ('time',))
        s[:] = np.arange(w.shape[0]) % 7
        f = nc.createVariable('fixedwalks', 'f4', ('fixed', 'series'))
        f[:] = w
    with netCDF4.Dataset(d + '/acc-' + name + '.nc', 'w', format=fmt) as nc:
        nc.createDimension('t', len(acc))
        for k in ('acc_x', 'acc_y', 'acc_z'):
            nc.createVariable(k, 'f8', ('t',))[:] = acc[k]
`

beforeAll(async () => {
  const w = generateWalks({ series: M, length: N, start: 10, eps: 0.01, seed: 5, anomalies: 2 })
  await writeSeries(at('walks.npy'), w.values, M, N, { layout: 'columns' })
  writeFileSync(at('fixtures.py'), FIXTURES)
  execFileSync('/usr/bin/python3', [at('fixtures.py'), dir, ACC], { stdio: 'pipe' })
}, 60_000)

const corr = (files: string[], p: Record<string, unknown> = {}) =>
  runCorrelationJob(validateParams('correlation', correlationWorkload.params, { files, repeat: 1, backends: ['serial', 'workers'], ...p }) as CorrelationParams, jobContext())

const stats = (files: string[], p: Record<string, unknown> = {}) =>
  runStatsJob(validateParams('stats', statsWorkload.params, { files, repeat: 1, batches: 2, backends: ['serial', 'workers'], failFast: true, ...p }) as StatsParams, jobContext())

/** Every number of `got` within `tol` of `want`'s, the rest equal. */
function expectClose(got: unknown, want: unknown, tol = 1e-12, path = ''): void {
  if (typeof want === 'number' && typeof got === 'number') {
    if (Number.isNaN(want)) expect(got, path).toBeNaN()
    else expect(Math.abs(got - want), `${path}: ${got} vs ${want}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(want)))
  } else if (want && typeof want === 'object') {
    expect(Object.keys(got as object).sort(), path).toEqual(Object.keys(want).sort())
    for (const k of Object.keys(want)) expectClose((got as Record<string, unknown>)[k], (want as Record<string, unknown>)[k], tol, `${path}.${k}`)
  } else expect(got, path).toEqual(want)
}

describe('correlation of an HDF5 or NetCDF copy of a .npy data set', () => {
  let original: Awaited<ReturnType<typeof corr>>
  beforeAll(async () => {
    original = await corr([at('walks.npy')])
  }, 60_000)

  const copies: [string, string, Record<string, unknown>, string][] = [
    ['HDF5, chunked, shuffle + deflate', 'walks.h5', { dataset: '/cluster/walks' }, 'hdf5'],
    ['HDF5, big-endian float32', 'walks.h5', { dataset: 'cluster/walks_f4_be' }, 'hdf5'],
    ['HDF5, a series per row', 'walks.h5', { dataset: '/cluster/rows', layout: 'rows' }, 'hdf5'],
    ['NetCDF-4 (zlib)', 'walks-nc4.nc', { dataset: '/walks' }, 'hdf5'],
    ['CDF-1, record variable', 'walks-cdf1.nc', { dataset: 'walks' }, 'netcdf'],
    ['CDF-1, fixed variable', 'walks-cdf1.nc', { dataset: '/fixedwalks' }, 'netcdf'],
    ['CDF-2', 'walks-cdf2.nc', { dataset: '/walks' }, 'netcdf'],
    ['CDF-5', 'walks-cdf5.nc', { dataset: '/walks' }, 'netcdf'],
  ]
  for (const [what, name, p, format] of copies)
    it(`${what} gives the .npy's result`, async () => {
      const got = await corr([at(name)], p)
      expect(got.results.input).toMatchObject({ format, series: M, length: N })
      expectClose(got.results.ranking, original.results.ranking)
      expectClose(got.results.heatmap, original.results.heatmap)
      expectClose(got.results.histogram, original.results.histogram)
    }, 30_000)

  it('reads a dataset of several pieces, across chunks and interleaved records, value for value', async () => {
    const npy = (await loadSeries('big.npy', at('big.npy'), { layout: 'columns', precision: 'f64' })).series
    const h5 = (await loadSeries('big.h5', at('big.h5'), { layout: 'columns', precision: 'f64', dataset: '/big' })).series
    const rows = (await loadSeries('big.h5', at('big.h5'), { layout: 'rows', precision: 'f64', dataset: '/big_rows' })).series
    const nc = (await loadSeries('big.nc', at('big.nc'), { layout: 'columns', precision: 'f64', dataset: 'big' })).series
    expect([npy.m, npy.n]).toEqual([120, 3001])
    for (const got of [h5, rows, nc]) {
      expect([got.m, got.n]).toEqual([120, 3001])
      expect(got.values).toEqual(npy.values)
    }
  }, 90_000)

  it('reads every integer type as numbers', async () => {
    const i8 = await loadSeries('w.h5', at('walks.h5'), { layout: 'columns', precision: 'f64', dataset: '/ints/i8' })
    expect(Array.from(i8.series.values)).toEqual([1, 3, 5, -2, 4, 7])
    const u64 = await loadSeries('w.h5', at('walks.h5'), { layout: 'rows', precision: 'f64', dataset: '/ints/u64' })
    expect(Array.from(u64.series.values)).toEqual([1, 2, 3, 5, 8, 13])
  })

  it('knows the files by content, whatever their names', async () => {
    expect((await sniffFile(at('walks.h5'))).kind).toBe('hdf5')
    expect((await sniffFile(at('walks-nc4.nc'))).kind).toBe('hdf5')
    for (const v of ['cdf1', 'cdf2', 'cdf5']) expect((await sniffFile(at(`walks-${v}.nc`))).kind).toBe('netcdf')
    writeFileSync(at('renamed.csv'), readFileSync(at('walks.h5')))
    const got = await loadSeries('renamed.csv', at('renamed.csv'), { layout: 'columns', precision: 'f64', dataset: '/cluster/walks' })
    expect(got.format).toBe('hdf5')
  })
})

describe('statistics of HDF5 and NetCDF copies of the accelerometer CSV', () => {
  let original: Awaited<ReturnType<typeof stats>>
  beforeAll(async () => {
    original = await stats([ACC], { columns: ['acc_x', 'acc_y', 'acc_z'] })
  }, 60_000)
  const copies: [string, string[]][] = [
    ['acc.h5', ['/acc/acc_x', '/acc/acc_y', '/acc/acc_z']],
    ['acc-nc4.nc', ['acc_x', 'acc_y', 'acc_z']],
    ['acc-cdf1.nc', ['/acc_x', '/acc_y', '/acc_z']],
    ['acc-cdf5.nc', ['acc_x', 'acc_y', 'acc_z']],
  ]
  for (const [name, columns] of copies)
    it(`${name}, its 1-D datasets named with --columns, gives the CSV's statistics`, async () => {
      const got = (await stats([at(name)], { columns })).results.files[0]
      const want = original.results.files[0]
      expect(got.rows).toBe(want.rows)
      const names = Object.keys(got.columns)
      expect(names.map((c) => c.replace(/^.*\//, ''))).toEqual(['acc_x', 'acc_y', 'acc_z'])
      names.forEach((c, i) => expectClose(got.columns[c], want.columns[['acc_x', 'acc_y', 'acc_z'][i]]))
    }, 30_000)
})

describe('bad HDF5 and NetCDF input', () => {
  const h5 = () => at('walks.h5')
  const load = (path: string, dataset?: string, layout: 'columns' | 'rows' = 'columns') => loadSeries('walks.h5', path, { layout, precision: 'f64', dataset })

  it('lists the datasets, with shapes and dtypes, when none is named', async () => {
    const e = await failure(load(h5()))
    expect(e.message).toMatch(/^walks\.h5: an HDF5 file; name one with --dataset\. Its datasets: /)
    expect(e.message).toContain('/cluster/walks float64 301 × 12')
    expect(e.message).toContain('/names string 2 (not numeric)')
    expect(e.message).not.toContain('/outside')
    expect(e.message).not.toContain('/loop')
    const nc = await failure(loadSeries('w.nc', at('walks-cdf1.nc'), { layout: 'columns', precision: 'f64' }))
    expect(nc.message).toContain('/walks float64 301 × 12; /step int16 301; /fixedwalks float32 301 × 12')
    expect(nc.message).toContain('/label char 12 (text, not numbers)')
    const st = await failure(stats([at('acc.h5')]))
    expect(st.message).toMatch(/acc\.h5: an HDF5 file; name its 1-D datasets with --columns \(e\.g\. --columns \/acc\/acc_x,/)
  })

  it('refuses a dataset the file lacks, listing those it has', async () => {
    const e = await failure(load(h5(), '/cluster/nothere'))
    expect(e.message).toMatch(/^walks\.h5: no dataset \/cluster\/nothere; name one with --dataset\. Its datasets: .*\/cluster\/walks float64/)
  })

  it('refuses strings, compounds and a 3-D dataset, naming the dataset', async () => {
    expect((await failure(load(h5(), '/names'))).message).toBe('walks.h5: dataset /names (string, 2): not numeric; numbers (int8–64, uint8–64, float16, float32, float64) are read')
    expect((await failure(load(h5(), '/records'))).message).toContain('walks.h5: dataset /records (compound, 4): not numeric')
    expect((await failure(load(h5(), '/cube'))).message).toBe('walks.h5: dataset /cube (float64, 2 × 3 × 4) is 3-D; 2-D is read here')
    expect((await failure(loadSeries('w.nc', at('walks-cdf1.nc'), { layout: 'columns', precision: 'f64', dataset: 'label' }))).message).toContain('w.nc: variable /label (char, 12): text, not numbers')
  })

  it('refuses datasets announcing 10¹² elements from their shape, before reading', async () => {
    const e = await failure(load(h5(), '/huge', 'rows'))
    expect(e.message).toMatch(/^walks\.h5: dataset \/huge: 1000000 series make a 1000000 × 1000000 matrix/)
    const s = await failure(stats([h5()], { columns: ['/hugecolumn'] }))
    expect(s.message).toMatch(/dataset \/hugecolumn announces 1000000000000 = 1\.000e\+12 elements \(8000\.0 GB as f64\)/)
  })

  it('reads nothing from another file: an external link, external raw storage, a virtual dataset', async () => {
    expect((await failure(load(h5(), '/outside'))).message).toMatch(/^walks\.h5: no dataset \/outside/)
    expect((await failure(load(h5(), '/virtual'))).message).toBe(
      'walks.h5: dataset /virtual (float64, 3 × 3): a virtual dataset, mapped from other files',
    )
    const stored = await failure(stats([h5()], { columns: ['/stored_outside'] }))
    expect(stored.message).toMatch(/walks\.h5: dataset \/stored_outside, rows 0–2 cannot be read \(/)
  })

  it('refuses NaN as the CSV reader does, naming the element', async () => {
    expect((await failure(load(h5(), '/withnan'))).message).toBe('walks.h5: dataset /withnan, element [5, 3] is NaN; every value must be a finite number')
  })

  it('refuses a truncated HDF5 file', async () => {
    const bytes = readFileSync(h5())
    writeFileSync(at('cut.h5'), bytes.subarray(0, Math.floor(bytes.length / 2)))
    const e = await failure(loadSeries('cut.h5', at('cut.h5'), { layout: 'columns', precision: 'f64', dataset: '/cluster/walks' }))
    expect(e.message).toMatch(/^cut\.h5: not a readable HDF5 file \(truncated file: eof = \d+/)
  })

  it('refuses a file named .h5 or .nc whose content is neither', async () => {
    writeFileSync(at('text.h5'), 'a,b\n1,2\n3,4\n')
    writeFileSync(at('text.nc'), 'a,b\n1,2\n3,4\n')
    for (const name of ['text.h5', 'text.nc'])
      expect((await failure(loadSeries(name, at(name), { layout: 'columns', precision: 'f64' }))).message).toBe(
        `${name}: named like an HDF5 or NetCDF file, but its content is not (no HDF5 signature and no CDF magic; it looks like text)`,
      )
  })

  it('refuses a classic NetCDF file whose header announces data past its end, and one cut inside its header', async () => {
    const bytes = readFileSync(at('walks-cdf2.nc'))
    writeFileSync(at('cut.nc'), bytes.subarray(0, bytes.length - 100))
    const e = await failure(loadSeries('cut.nc', at('cut.nc'), { layout: 'columns', precision: 'f64', dataset: 'walks' }))
    expect(e.message).toMatch(/^cut\.nc: variable \/walks \(float64, 301 × 12\) announces data up to byte \d+; the file has \d+ \(truncated\?\)/)
    writeFileSync(at('head.nc'), bytes.subarray(0, 60))
    expect((await failure(loadSeries('head.nc', at('head.nc'), { layout: 'columns', precision: 'f64', dataset: 'walks' }))).message).toBe(
      'head.nc: the NetCDF header is cut short (truncated file of 60 bytes?)',
    )
    // A header announcing 2^32 − 1 dimensions in a 24-byte file: refused from the count.
    const lie = Buffer.from([0x43, 0x44, 0x46, 1, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0])
    writeFileSync(at('lie.nc'), lie)
    expect((await failure(loadSeries('lie.nc', at('lie.nc'), { layout: 'columns', precision: 'f64' }))).message).toBe(
      'lie.nc: not a readable NetCDF file: 4294967295 dimensions announced at byte 16; the file has 24 bytes',
    )
  })

  it('refuses --dataset for a CSV and --columns for an HDF5 file', async () => {
    writeFileSync(at('plain.csv'), 'a,b\n1,2\n3,5\n')
    expect((await failure(loadSeries('plain.csv', at('plain.csv'), { layout: 'columns', precision: 'f64', dataset: '/x' }))).message).toBe(
      'plain.csv: --dataset names a dataset of an HDF5 or NetCDF file; this file is neither',
    )
    expect((await failure(loadSeries('walks.h5', h5(), { layout: 'columns', precision: 'f64', columns: ['a'] }))).message).toBe(
      'walks.h5: --columns chooses columns of a CSV; name the dataset of this HDF5 file with --dataset',
    )
  })

  it('stops between pieces when cancelled', async () => {
    const controller = new AbortController()
    controller.abort()
    expect((await failure(loadSeries('walks.h5', h5(), { layout: 'columns', precision: 'f64', dataset: '/cluster/walks', signal: controller.signal }))).code).toBe('cancelled')
  })
})

describe('paralab generate walks x.h5, and the CLI on it', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir })

  it('writes a chunked float32 dataset h5py reads as the .npy of the same seed, which correlation reads with --dataset', () => {
    for (const out of ['gen.h5', 'gen.npy']) expect(cli('generate', 'walks', out, '--series', '9', '--length', '200', '--anomalies', '1', '--seed', '4').status).toBe(0)
    const check = execFileSync('/usr/bin/python3', ['-c', "import h5py, numpy as np; d = h5py.File('gen.h5')['walks']; print(d.shape, d.dtype, d.compression, np.array_equal(d[:], np.load('gen.npy')))"], { cwd: dir, encoding: 'utf8' })
    expect(check.trim()).toBe('(200, 9) float32 gzip True')
    // No dataset named: the listing, and a failure exit.
    const listed = cli('correlation', 'gen.h5', '--backend', 'serial')
    expect(listed.status).not.toBe(0)
    expect(listed.stderr).toContain('gen.h5: an HDF5 file; name one with --dataset. Its datasets: /walks float32 200 × 9')
    const h5 = JSON.parse(cli('correlation', 'gen.h5', '--dataset', '/walks', '--backend', 'serial', '--json').stdout)
    const npy = JSON.parse(cli('correlation', 'gen.npy', '--backend', 'serial', '--json').stdout)
    expect(h5.results.input.format).toBe('hdf5')
    expectClose(h5.results.ranking, npy.results.ranking)
    // Not over an existing file.
    const again = cli('generate', 'walks', 'gen.h5', '--series', '9', '--length', '200')
    expect(again.status).not.toBe(0)
    expect(again.stderr).toContain('gen.h5 already exists (use --force to overwrite)')
  }, 60_000)
})
