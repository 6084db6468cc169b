// HDF5 and NetCDF under `paralab serve`: while a large chunked, deflated HDF5 dataset loads (h5wasm
// reads synchronously, on a worker thread) and while a classic NetCDF variable loads, a ping sent
// meanwhile is answered within 1 s; a dataset announcing 10¹² elements is refused at once; and the
// job's answer is the dataset's. Fixtures are written by h5py and netCDF4 at set-up.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServe, type ServeProcess } from '../helpers/serve'
import { connectApi, jobWhilePinging, type ApiClient } from '../helpers/api-client'

const root = mkdtempSync(join(tmpdir(), 'paralab-hdf5-serve-'))
let serve: ServeProcess
let api: ApiClient

beforeAll(async () => {
  // 12 000 samples of 256 series (24.6 MB of float64), in chunks of 500 rows, shuffled and deflated.
  writeFileSync(
    join(root, 'make.py'),
    String.raw`
import sys, numpy as np, h5py, netCDF4
d = sys.argv[1]
rng = np.random.default_rng(7)
x = np.cumsum(rng.standard_normal((12000, 256)), axis=0)
with h5py.File(d + '/big.h5', 'w') as f:
    f.create_dataset('/run/series', data=x, chunks=(500, 256), compression='gzip', shuffle=True)
    f.create_dataset('/huge', shape=(10**6, 10**6), dtype='<f8', chunks=(1000, 1000))
with netCDF4.Dataset(d + '/big.nc', 'w', format='NETCDF3_64BIT_OFFSET') as nc:
    nc.createDimension('time', None)
    nc.createDimension('series', 256)
    nc.createVariable('series', 'f8', ('time', 'series'))[:] = x
`,
  )
  execFileSync('/usr/bin/python3', [join(root, 'make.py'), root], { stdio: 'pipe' })
  serve = await startServe(['--data', root])
  api = await connectApi(serve)
}, 120_000)
afterAll(async () => {
  api?.close()
  await serve?.stop()
  rmSync(root, { recursive: true, force: true })
})

const pinging = (workload: string, params: Record<string, unknown>) => jobWhilePinging(api, workload, params)

describe('HDF5 and NetCDF under serve', () => {
  it('a 25 MB deflated HDF5 dataset loads while pings are answered within 1 s', async () => {
    const { end, worst } = await pinging('correlation', { files: [join(root, 'big.h5')], dataset: '/run/series', backends: ['workers'], repeat: 1 })
    expect(end.type).toBe('done')
    expect(end.envelope.results.input).toMatchObject({ format: 'hdf5', series: 256, length: 12000 })
    expect(worst).toBeLessThan(1000)
  }, 120_000)

  it('a classic NetCDF record variable of the same series loads while pings are answered within 1 s', async () => {
    const { end, worst } = await pinging('correlation', { files: [join(root, 'big.nc')], dataset: 'series', backends: ['workers'], repeat: 1 })
    expect(end.type).toBe('done')
    expect(end.envelope.results.input).toMatchObject({ format: 'netcdf', series: 256, length: 12000 })
    expect(worst).toBeLessThan(1000)
  }, 120_000)

  it('a dataset announcing 10¹² elements is refused from its shape; no dataset named lists them', async () => {
    const huge = await pinging('correlation', { files: [join(root, 'big.h5')], dataset: '/huge', layout: 'rows', repeat: 1 })
    expect(huge.end.type).toBe('failed')
    expect(huge.end.error.message).toContain('big.h5: dataset /huge: 1000000 series make a 1000000 × 1000000 matrix')
    expect(huge.worst).toBeLessThan(1000)
    const none = await pinging('correlation', { files: [join(root, 'big.h5')], repeat: 1 })
    expect(none.end.error.message).toContain('big.h5: an HDF5 file; name one with --dataset. Its datasets: /huge float64 1000000 × 1000000; /run/series float64 12000 × 256')
  }, 60_000)

  it('lists a file\'s datasets for the dashboard\'s chooser, only inside the data folders', async () => {
    expect(await api.call('listDatasets', join(root, 'big.h5'))).toEqual([
      { path: '/huge', shape: [1e6, 1e6], dtype: 'float64' },
      { path: '/run/series', shape: [12000, 256], dtype: 'float64' },
    ])
    expect(await api.call('listDatasets', join(root, 'big.nc'))).toEqual([{ path: '/series', shape: [12000, 256], dtype: 'float64' }])
    expect(await api.call('listDatasets', join(root, 'make.py'))).toEqual([])
    await expect(api.call('listDatasets', '/etc/passwd')).rejects.toThrow('/etc/passwd is outside the data folders')
    await expect(api.call('listDatasets', 42)).rejects.toThrow('path must be a file path; got 42')
  })
})
