// The gpu correlation backend on the software adapter: the generator bit for bit against the CPU's,
// every means kernel against the f64 means, every cross-product kernel (in both precisions) against
// Pearson's formula, on sizes that cross the edges: 2, 3 and 65 series, 2 and 257 samples, bands of
// 64 rows, a constant series, a negated and an identical pair.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CROSS_VARIANTS, MEANS_VARIANTS, type Precision } from '../../src/shared/workloads/correlation/types'
import { type Gpu, getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { createGpuCorrelationEngine } from '../../src/main/workloads/correlation/gpu/gpu-engine'
import { GENERATOR_WORKGROUPS, generateWalksGpu, workgroupUnavailable } from '../../src/main/workloads/correlation/gpu/generate'
import { indexNames, seriesMatrix } from '../../src/main/workloads/correlation/series-matrix'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { edgeSeries, maxAbsDiff, pearsonMatrix } from '../helpers/correlation-reference'
import { fsum } from '../helpers/stats-reference'

let gpu: Gpu

beforeAll(async () => {
  gpu = await getGpu()
})

afterAll(() => resetGpu())

describe('generator K1', () => {
  const walk = { series: 65, length: 257, start: 100, eps: 0.01, seed: 42, anomalies: 3 }
  const cpu = generateWalks(walk)

  it.each(GENERATOR_WORKGROUPS)('with workgroups of %i makes the CPU walks bit for bit, or says why it cannot', async (wg) => {
    const why = workgroupUnavailable(gpu, wg)
    if (why) {
      await expect(generateWalksGpu(gpu, walk, wg)).rejects.toThrow(`workgroups of ${wg} invocations exceed this adapter's`)
      return
    }
    const got = await generateWalksGpu(gpu, walk, wg)
    expect(got.anomalies).toEqual(cpu.anomalies)
    expect(new Uint32Array(got.values.buffer)).toEqual(new Uint32Array(cpu.values.buffer))
    expect(got.ms.walks).toBeGreaterThan(0)
  })

  it('splits the series into bands when one output buffer cannot hold them', async () => {
    const small = { ...walk, series: 5, length: 9, anomalies: 1 }
    const want = generateWalks(small)
    const limited = Object.create(gpu, { limits: { value: { ...gpu.limits, maxStorageBufferBindingSize: 2 * 9 * 4 } } }) as Gpu
    const got = await generateWalksGpu(limited, small, 32)
    expect(new Uint32Array(got.values.buffer)).toEqual(new Uint32Array(want.values.buffer))
  })
})

/** Series with every edge at once (see edgeSeries), and the formula's matrix. */
function dataSet(m: number, n: number, seed: number) {
  const values = edgeSeries(m, n, seed, { constant: true, offset: 100 })
  return { series: seriesMatrix(indexNames(m), values, m, n), want: pearsonMatrix(values, m, n), values }
}

/** Largest error of r per precision: f32-rounded centred data, and all-f32 arithmetic. */
const BOUND: Record<Precision, number> = { f64: 2e-6, f32: 1e-3 }

describe.each(['f64', 'f32'] as const)('%s', (precision) => {
  it.each([
    [2, 2],
    [3, 257],
    [65, 2],
    [65, 257],
  ])('every means kernel gives the means and every cross-product kernel the matrix: %i series of %i samples', async (m, n) => {
    const { series, want, values } = dataSet(m, n, m * 7 + n)
    const means = MEANS_VARIANTS.filter((v) => v !== 'subgroup' || gpu.features.includes('subgroups'))
    const engine = await createGpuCorrelationEngine(gpu, series, precision, { means, cross: [...CROSS_VARIANTS] })
    const meanError: Record<string, number> = {}
    const matrixError: Record<string, number> = {}
    try {
      await engine.run({
        means: (v, got) => {
          meanError[v] = Math.max(...Array.from({ length: m }, (_, i) => Math.abs(got[i] / (fsum(values.subarray(i * n, (i + 1) * n)) / n) - 1)))
        },
        cross: (v, got) => {
          matrixError[v] = maxAbsDiff(got, want)
        },
      })
    } finally {
      engine.dispose()
    }
    expect(Object.keys(meanError)).toEqual(means)
    for (const [v, e] of Object.entries(meanError)) expect(e, v).toBeLessThan(precision === 'f64' ? 1e-7 : 1e-5)
    expect(Object.keys(matrixError)).toEqual(CROSS_VARIANTS)
    // NaN in the same cells (the constant series), the rest within the bound.
    for (const [v, e] of Object.entries(matrixError)) expect(e, v).toBeLessThan(BOUND[precision])
  })
})

it('computes the matrix band pair by band pair when the series do not fit one band', async () => {
  const { series, want } = dataSet(130, 33, 3)
  const engine = await createGpuCorrelationEngine(gpu, series, 'f64', { means: ['shared'], cross: ['register', 'tiled'], bandRows: 64 })
  try {
    expect(engine.plan.bands.map((b) => [b.row0, b.rows])).toEqual([[0, 64], [64, 64], [128, 2]])
    const errors: number[] = []
    await engine.run({ cross: (_, got) => errors.push(maxAbsDiff(got, want)) })
    expect(errors).toHaveLength(2)
    for (const e of errors) expect(e).toBeLessThan(BOUND.f64)
  } finally {
    engine.dispose()
  }
})

it('keeps compensated f32 at the precision of its rounded inputs, where plain f32 sums lose more', async () => {
  // Walks around 100 with 4096 samples: long sums of products that cancel.
  const w = generateWalks({ series: 12, length: 4096, start: 100, eps: 0.01, seed: 1, anomalies: 2 })
  const values = Float64Array.from(w.values)
  const series = seriesMatrix(indexNames(12), values, 12, 4096)
  const want = pearsonMatrix(values, 12, 4096)
  const error: Partial<Record<Precision, number>> = {}
  for (const precision of ['f64', 'f32'] as const) {
    const engine = await createGpuCorrelationEngine(gpu, series, precision, { means: ['shared'], cross: ['register'] })
    try {
      await engine.run()
      error[precision] = maxAbsDiff(engine.matrix(), want)
    } finally {
      engine.dispose()
    }
  }
  expect(error.f64).toBeLessThan(5e-7)
  expect(error.f32!).toBeGreaterThan(2 * error.f64!)
})
