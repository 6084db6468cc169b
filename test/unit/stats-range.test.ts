// Statistics over the whole f64 range on every CPU backend (run `npm run build` first: the
// workers and SIMD kernels load from out/), against exact rational arithmetic in Python
// (fractions, decimal) run at set-up: mean and std within 1e-12 relative, median and MAD bit for
// bit. Where a + b of the middle pair overflows, the median is the true midpoint (numpy gives ±∞).
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CPU_STATS_BACKENDS, type CpuStatsBackend, type CpuStatsEngine, createCpuStatsEngine, referenceColumnStats } from '../../src/main/workloads/stats/cpu'
import { midpoint } from '../../src/main/workloads/stats/definitions'
import { rangeCases, exactStats, expectRangeStats } from '../helpers/stats-range'
import { runStatsJob } from '../../src/main/workloads/stats/run-stats'
import { jobContext } from '../helpers/job-context'
import { type StatsParams, statsWorkload } from '../../src/shared/workloads/stats'
import { validateParams } from '../../src/shared/workloads/schema'

const expected = exactStats(rangeCases)
const engines = {} as Record<CpuStatsBackend, CpuStatsEngine>

beforeAll(async () => {
  for (const backend of CPU_STATS_BACKENDS) engines[backend] = await createCpuStatsEngine(backend, { threads: 3 })
})

afterAll(async () => {
  for (const engine of Object.values(engines)) await engine.dispose()
})

describe.each(Object.keys(rangeCases))('%s', (name) => {
  it('reference', () => expectRangeStats(referenceColumnStats(rangeCases[name]), expected[name]))
  it.each(CPU_STATS_BACKENDS)('%s', async (backend) => {
    const engine = engines[backend]
    const column = await engine.prepare(rangeCases[name], 'f64')
    try {
      expectRangeStats(await engine.compute(column), expected[name])
    } finally {
      engine.release(column)
    }
  })
})

describe('midpoint', () => {
  it('of one value is that value, of the largest pair their true midpoint', () => {
    const max = Number.MAX_VALUE
    expect(midpoint(-max, -max, 'f64')).toBe(-max)
    expect(midpoint(max, max * 0.5, 'f64')).toBe(max * 0.75)
    expect(midpoint(1.7e308, 1.7e308, 'f64')).toBe(1.7e308)
    expect(midpoint(-max, max, 'f64')).toBe(0)
    expect(midpoint(5e-324, 1e-323, 'f64')).toBe(1e-323) // 1.5 · 2^-1074, ties to even
    expect(midpoint(-Infinity, Infinity, 'f64')).toBeNaN()
    expect(midpoint(Infinity, 1, 'f64')).toBe(Infinity)
    const numpy = execFileSync('/usr/bin/python3', ['-W', 'ignore', '-c', 'import numpy as np; print(np.median([1.7e308, 1.7e308]))'], { encoding: 'utf8' }).trim()
    expect(numpy).toBe('inf') // what numpy's (a + b) / 2 gives; this one is the true value
  })
})

describe('stats on the NetCDF-4 conformance file holding ±1.797e308', () => {
  it('ref_nc_test_netcdf4_4_0.nc --columns /d1,/d2: median and mean of −MAX alone are −MAX', async () => {
    const path = '../shared/corpora/hdf5/Unidata+netcdf-c/ncdump/ref_nc_test_netcdf4_4_0.nc'
    const params = validateParams('stats', statsWorkload.params, { files: [path], columns: ['/d1', '/d2'], backends: ['serial', 'workers-simd'], repeat: 1, batches: 1, failFast: true })
    const { results } = await runStatsJob(params as StatsParams, jobContext())
    expect(results.failed).toEqual([])
    const file = results.files[0]
    const read = (v: string) => JSON.parse(execFileSync('/usr/bin/python3', ['-c', `import netCDF4, json; print(json.dumps(netCDF4.Dataset('${path}')['${v}'][:].tolist()))`], { encoding: 'utf8' })) as number[]
    const [d1] = read('d1')
    const d2 = read('d2')
    expect(d1).toBeLessThan(-1.7e308)
    expect(d2).toEqual([d1, -d1])
    expect(Object.keys(file.backends).sort()).toEqual(['serial', 'workers-simd'])
    for (const backend of Object.values(file.backends)) {
      expect(backend.columns['/d1']).toMatchObject({ mean: d1, std: 0, median: d1, mad: 0 })
      expect(backend.columns['/d2']).toMatchObject({ mean: 0, std: -d1, median: 0, mad: -d1 })
    }
    expect(file.columns['/d1']).toMatchObject({ n: 1, mean: d1, median: d1 })
  })
})
