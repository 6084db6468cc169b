// The gpu statistics backend (on the software adapter) over the whole f64 range, against exact
// rational arithmetic in Python: mean and std within 1e-12 relative, median and MAD bit for bit.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { type GpuStatsEngine, createGpuStatsEngine } from '../../src/main/workloads/stats/gpu/gpu-engine'
import { exactStats, expectRangeStats, rangeCases } from '../helpers/stats-range'

const expected = exactStats(rangeCases)
let engine: GpuStatsEngine

beforeAll(async () => {
  engine = await createGpuStatsEngine()
  await engine.compileKernels('f64') // on the software adapter, compiling takes longer than a test
}, 600_000)

afterAll(async () => {
  await engine?.dispose()
})

describe.each(Object.keys(rangeCases))('%s', (name) => {
  it('gpu', async () => {
    const column = await engine.prepare(rangeCases[name], 'f64')
    try {
      expectRangeStats(await engine.compute(column), expected[name])
    } finally {
      engine.release(column)
    }
  })
})

it('gpu, every case in one compute (pipelined)', async () => {
  const names = Object.keys(rangeCases)
  const columns = await Promise.all(names.map((name) => engine.prepare(rangeCases[name], 'f64')))
  try {
    const stats = await engine.computeMany(columns)
    names.forEach((name, i) => expectRangeStats(stats[i], expected[name]))
  } finally {
    for (const c of columns) engine.release(c)
  }
}, 300_000)
