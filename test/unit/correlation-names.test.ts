// Series named from HDF5 and NetCDF files written by the reference libraries (h5py, netCDF4): a
// dataset of strings named with --names, the coordinate variable of the series' dimension (a
// NetCDF-4 string coordinate, a classic NetCDF character array, an HDF5 dimension scale), in both
// layouts; names xarray gives the same files; and every bad list refused naming the file and the
// dataset. The HDF5 reader runs on a worker thread: `npm run build` first.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CorrelationParams, correlationWorkload } from '../../src/shared/workloads/correlation'
import { validateParams } from '../../src/shared/workloads/schema'
import { loadSeries } from '../../src/main/workloads/correlation/load-series'
import { runCorrelationJob } from '../../src/main/workloads/correlation/run-correlation'
import { indexNames } from '../../src/main/workloads/correlation/series-matrix'
import { failure } from '../helpers/failure'
import { jobContext } from '../helpers/job-context'

const dir = mkdtempSync(join(tmpdir(), 'paralab-names-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const M = 6
const N = 40
const NAMES = ['Belluno', 'Feltre', 'Agordo', 'Cortina d’Ampezzo', 'Pieve', 'Alpago']

const FIXTURES = String.raw`
import sys, json, numpy as np, h5py, netCDF4
d = sys.argv[1]
names = json.loads(sys.argv[2])
M, N = len(names), 40
rng = np.random.default_rng(3)
common = np.cumsum(rng.standard_normal(N))
x = common[:, None] + 0.3 * rng.standard_normal((N, M))       # N x M: a series per column
# Character arrays (a name a row, NUL-padded), as UTF-8 bytes.
chars = np.array([n.encode('utf-8') for n in names], dtype='S24').view('S1').reshape(M, 24)
with h5py.File(d + '/named.h5', 'w') as f:
    f['/lab/walks'] = x
    f['/lab/rows'] = x.T
    f['/lab/names'] = np.array(names, dtype=h5py.string_dtype())
    f['/lab/fixed'] = np.array([n.encode() for n in ['a', 'b', 'c', 'd', 'e', 'f']], dtype='S8')
    f['/lab/five'] = np.array(names[:5], dtype=h5py.string_dtype())
    f['/lab/twice'] = np.array(names[:5] + names[:1], dtype=h5py.string_dtype())
    f['/lab/long'] = np.array(names[:5] + ['x' * 300], dtype=h5py.string_dtype())
    f['/lab/empty'] = np.array(names[:5] + [''], dtype=h5py.string_dtype())
    f['/lab/newline'] = np.array(names[:5] + ['a\nb'], dtype=h5py.string_dtype())
    f['/lab/numbers'] = np.arange(M, dtype='<i4')
    f['/lab/wide'] = np.array([n.encode() for n in 'abcdef'], dtype='S300')
with h5py.File(d + '/scaled.h5', 'w') as f:
    f['/station'] = np.array(names, dtype=h5py.string_dtype())
    f['/station'].make_scale('station')
    f['/x'] = x
    f['/x'].dims[1].attach_scale(f['/station'])
with netCDF4.Dataset(d + '/named4.nc', 'w', format='NETCDF4') as nc:
    nc.createDimension('time', N)
    nc.createDimension('station', M)
    nc.createDimension('strlen', 24)
    s = nc.createVariable('station', str, ('station',))
    for i, n in enumerate(names): s[i] = n
    nc.createVariable('temp', 'f8', ('time', 'station'))[:] = x
    c = nc.createVariable('label', 'S1', ('station', 'strlen'))
    c[:] = chars
with netCDF4.Dataset(d + '/named3.nc', 'w', format='NETCDF3_CLASSIC') as nc:
    nc.createDimension('time', N)
    nc.createDimension('station', M)
    nc.createDimension('strlen', 24)
    c = nc.createVariable('station', 'S1', ('station', 'strlen'))
    c[:] = chars
    nc.createVariable('temp', 'f8', ('station', 'time'))[:] = x.T
    nc.createVariable('depth', 'f8', ('station',))[:] = np.arange(M)
with netCDF4.Dataset(d + '/numbered.nc', 'w', format='NETCDF4') as nc:
    nc.createDimension('time', N)
    nc.createDimension('station', M)
    nc.createVariable('station', 'i4', ('station',))[:] = np.arange(100, 100 + M)
    nc.createVariable('temp', 'f8', ('time', 'station'))[:] = x
# The names as netCDF4 and h5py read them back: strings, and character arrays a row each (the
# row's bytes up to the first NUL, UTF-8; chartostring would cut a multi-byte name at 24 characters).
out = {}
text = lambda rows: [b''.join(r.tolist()).split(b'\0')[0].decode('utf-8') for r in np.asarray(rows)]
with netCDF4.Dataset(d + '/named4.nc') as nc:
    nc.set_auto_chartostring(False)
    out['named4'] = [str(v) for v in nc['station'][:]]
    out['label'] = text(nc['label'][:])
with netCDF4.Dataset(d + '/named3.nc') as nc:
    nc.set_auto_chartostring(False)
    out['named3'] = text(nc['station'][:])
with h5py.File(d + '/scaled.h5') as f:
    out['scaled'] = [v.decode() for v in f['/station'][:]]
print(json.dumps(out))
`

let reference: Record<string, string[]>

beforeAll(() => {
  writeFileSync(at('fixtures.py'), FIXTURES)
  reference = JSON.parse(execFileSync('/usr/bin/python3', [at('fixtures.py'), dir, JSON.stringify(NAMES)], { encoding: 'utf8', env: { ...process.env, PYTHONUTF8: '1' } }))
}, 60_000)

const names = async (file: string, opts: { dataset: string; names?: string; layout?: 'columns' | 'rows' }) =>
  (await loadSeries(file, at(file), { layout: opts.layout ?? 'columns', precision: 'f64', dataset: opts.dataset, names: opts.names })).series.names

describe('series names from the file', () => {
  it('reads the dataset of strings --names gives, in either layout, variable- or fixed-length', async () => {
    expect(await names('named.h5', { dataset: '/lab/walks', names: '/lab/names' })).toEqual(NAMES)
    expect(await names('named.h5', { dataset: '/lab/rows', names: 'lab/names', layout: 'rows' })).toEqual(NAMES)
    expect(await names('named.h5', { dataset: '/lab/walks', names: '/lab/fixed' })).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
    // Without --names and with no coordinate: s0, s1, … as before.
    expect(await names('named.h5', { dataset: '/lab/walks' })).toEqual(indexNames(M))
  })

  it('takes the coordinate variable of the series\' dimension as xarray does: NetCDF-4 strings, classic characters, an HDF5 dimension scale', async () => {
    for (const k of ['named4', 'named3', 'scaled', 'label']) expect(reference[k], k).toEqual(NAMES)
    expect(await names('named4.nc', { dataset: '/temp' })).toEqual(reference.named4)
    expect(await names('named3.nc', { dataset: '/temp', layout: 'rows' })).toEqual(reference.named3)
    expect(await names('scaled.h5', { dataset: '/x' })).toEqual(reference.scaled)
    // A character array named with --names: netCDF4's chartostring of it.
    expect(await names('named4.nc', { dataset: '/temp', names: '/label' })).toEqual(reference.label)
    // A coordinate of numbers leaves the names s0, s1, …
    expect(await names('numbered.nc', { dataset: '/temp' })).toEqual(indexNames(M))
  })

  it('names the ranking and the heatmap of a run', async () => {
    const params = validateParams('correlation', correlationWorkload.params, { files: [at('named.h5')], dataset: '/lab/walks', names: '/lab/names', backends: ['serial'], repeat: 1 }) as CorrelationParams
    const { results } = await runCorrelationJob(params, jobContext())
    expect(results.ranking.map((e) => e.name).sort()).toEqual([...NAMES].sort())
    expect(results.heatmap!.labels).toEqual(NAMES)
  })

  it.each([
    ['/lab/five', 'named.h5: dataset /lab/five (named by --names): 5 names for 6 series'],
    ['/lab/twice', 'named.h5: dataset /lab/twice (named by --names): elements [0] and [5] are both "Belluno"; a name picks one series'],
    ['/lab/long', 'named.h5: dataset /lab/long (named by --names): element [5] is a name of 300 characters; at most 256'],
    ['/lab/empty', 'named.h5: dataset /lab/empty (named by --names): element [5] is an empty name'],
    ['/lab/newline', 'named.h5: dataset /lab/newline (named by --names): element [5] "a\\nb" holds a control character'],
    ['/lab/wide', 'named.h5: dataset /lab/wide (string, 6): strings of 300 bytes; a name has at most 256 (named by --names)'],
    ['/lab/numbers', 'named.h5: dataset /lab/numbers (int32, 6) does not hold strings (named by --names)'],
    ['/lab/walks', 'named.h5: dataset /lab/walks (named by --names) is the dataset of the series themselves'],
    ['/lab/none', 'named.h5: no dataset /lab/none to name the series; name one with --names. Its datasets: /lab/empty string 6 (not numeric); /lab/five string 5'],
  ])('refuses %s, naming the file and the dataset', async (bad, message) => {
    const e = await failure(names('named.h5', { dataset: '/lab/walks', names: bad }))
    expect(e.message).toContain(message)
  })

  it('refuses a character variable of the wrong count in a classic file, and --names on a file of no datasets', async () => {
    const e = await failure(names('named3.nc', { dataset: '/temp', names: '/depth', layout: 'rows' }))
    expect(e.message).toMatch(/^named3\.nc: variable \/depth .*names are a 2-D character variable, a name a row \(named by --names\)$/)
    writeFileSync(at('plain.csv'), 'a,b\n1,2\n2,1\n3,5\n')
    expect((await failure(names('plain.csv', { dataset: undefined as unknown as string, names: '/x' }))).message).toBe(
      'plain.csv: --names names a dataset of strings in an HDF5 or NetCDF file; this file is neither (a table\'s series are named by its columns)',
    )
  })
})
