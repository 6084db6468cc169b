// The gpu correlation backend on the software adapter: the generator bit for bit against the CPU's,
// every means kernel against the f64 means, every cross-product kernel (in both precisions) against
// Pearson's formula, on sizes that cross the edges: 2, 3 and 65 series, 2 and 257 samples, bands of
// 128 rows, a constant series, a negated and an identical pair; the register kernel in tile shapes
// that cross its own edges (series not a multiple of the block, fewer than one block, several bands).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CROSS_VARIANTS, MEANS_VARIANTS, type Precision } from '../../src/shared/workloads/correlation/types'
import { type Gpu, getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { benchCorrelation } from '../../src/main/workloads/correlation/bench'
import { createGpuCorrelationEngine } from '../../src/main/workloads/correlation/gpu/gpu-engine'
import { parseRegisterShape, shapeUnavailable } from '../../src/main/workloads/correlation/gpu/register-shapes'
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
  const { series, want } = dataSet(260, 33, 3)
  const engine = await createGpuCorrelationEngine(gpu, series, 'f64', { means: ['shared'], cross: ['register', 'tiled'], bandRows: 128 })
  try {
    expect(engine.plan.bands.map((b) => [b.row0, b.rows])).toEqual([[0, 128], [128, 128], [256, 4]])
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
  const error: Record<string, number> = {}
  // The default shapes, and chunks of 128 plain f32 sums between compensated additions.
  const runs = [
    ['f64', undefined],
    ['f32', undefined],
    ['f64', parseRegisterShape('b32-t4x4-k4-c128')],
  ] as const
  for (const [precision, register] of runs) {
    const engine = await createGpuCorrelationEngine(gpu, series, precision, { means: ['shared'], cross: ['register'], register })
    try {
      await engine.run()
      error[`${precision} c${engine.register.chunk}`] = maxAbsDiff(engine.matrix(), want)
    } finally {
      engine.dispose()
    }
  }
  expect(Object.keys(error)).toEqual(['f64 c32', 'f32 c32', 'f64 c128'])
  expect(error['f64 c32']).toBeLessThan(5e-7)
  expect(error['f64 c128']).toBeLessThan(5e-7)
  expect(error['f32 c32']).toBeGreaterThan(2 * Math.max(error['f64 c32'], error['f64 c128']))
})

/** A GPU whose bindings hold one 128 × 128 f32 tile, so that a few hundred series need several bands. */
function smallBindings(): Gpu {
  const limit = 128 * 128 * 4
  return Object.create(gpu, { limits: { value: { ...gpu.limits, maxStorageBufferBindingSize: limit, maxBufferSize: limit } } }) as Gpu
}

// Shapes that fit the software adapter (256 invocations, 32 KiB of workgroup memory) and between them
// cross every edge of the kernel: blocks of 32, 64 and 128; 4 or 8 rows and columns, alike and not;
// 4 to 32 samples per step; more loads than invocations (4 vec4 each); chunks of 1 to 8 steps.
const SHAPES = ['b128-t8x8-k8', 'b64-t8x4-k16-c16', 'b32-t4x4-k32-c128', 'b64-t4x8-k8', 'b32-t4x4-k4-c8']
/** The shapes' data sets, made once: the formula's matrix of 300 series takes a while. */
const shapeCases = () => [
  { m: 130, n: 257 },
  { m: 5, n: 40 },
  { m: 300, n: 33, banded: true },
].map((c) => ({ ...c, ...dataSet(c.m, c.n, c.m + c.n) }))
let shapeData: ReturnType<typeof shapeCases> | undefined

describe.each(SHAPES)('register kernel, shape %s', (name) => {
  const shape = parseRegisterShape(name)

  it('runs on the software adapter', () => {
    expect(shapeUnavailable(gpu, shape)).toBeNull()
  })

  it.each(['f64', 'f32'] as const)('%s: gives the matrix for series not a multiple of the block, fewer than one block, and over several bands', async (precision) => {
    shapeData ??= shapeCases()
    for (const c of shapeData) {
      const { series, want } = c
      const engine = await createGpuCorrelationEngine(c.banded ? smallBindings() : gpu, series, precision, { means: ['shared'], cross: ['register'], register: shape })
      try {
        expect(engine.register).toEqual(shape)
        expect(engine.plan.bands.map((b) => b.rows)).toEqual(c.banded ? [128, 128, 44] : [c.m])
        let error = NaN
        await engine.run({ cross: (_, got) => (error = maxAbsDiff(got, want)) })
        expect(error, `${c.m} × ${c.n}`).toBeLessThan(BOUND[precision])
      } finally {
        engine.dispose()
      }
    }
  })
})

it('refuses a register shape the adapter cannot run, naming the limit', async () => {
  const { series } = dataSet(3, 8, 1)
  const tooWide = parseRegisterShape('b128-t4x4-k8') // 32 × 32 invocations
  await expect(createGpuCorrelationEngine(gpu, series, 'f64', { means: ['shared'], cross: ['register'], register: tooWide })).rejects.toThrow(
    /register shape b128-t4x4-k8: 32 × 32 invocations exceed this adapter's workgroups/,
  )
})

describe('bench correlation --shapes', () => {
  const options = { series: 40, length: 64, backends: ['gpu' as const], repeat: 1, means: ['shared' as const], cross: ['register' as const], numpy: false, log: () => {} }

  it('times the register kernel in each shape, checks its matrix on sampled pairs, and names the shapes the adapter cannot run', async () => {
    const shapes = ['b32-t4x4-k4', 'b64-t4x4-k8-c64', 'b128-t4x4-k8'].map(parseRegisterShape)
    const result = await benchCorrelation({ ...options, precision: 'f64', shapes })
    const gpuFigures = result.backends.gpu!
    expect(gpuFigures.kernels!['cross-register'].max_abs_dr_sampled).toBeLessThan(BOUND.f64)
    expect(Object.keys(gpuFigures.shapes!)).toEqual(['b32-t4x4-k4', 'b64-t4x4-k8-c64'])
    for (const f of Object.values(gpuFigures.shapes!)) {
      expect(f.ms).toBeGreaterThan(0)
      expect(f.TFLOP_per_s).toBeGreaterThan(0)
      expect(f.total_ms).toBeGreaterThan(f.ms)
      expect(f.max_abs_dr_sampled).toBeLessThan(BOUND.f64)
    }
    expect(result.notes.some((n) => n.startsWith('register shape b128-t4x4-k8 skipped: 32 × 32 invocations exceed'))).toBe(true)
  })

  it('times shapes that differ only in their chunk once in f32, where nothing is compensated', async () => {
    const shapes = ['b32-t4x4-k4', 'b32-t4x4-k4-c8'].map(parseRegisterShape)
    const result = await benchCorrelation({ ...options, precision: 'f32', shapes })
    expect(Object.keys(result.backends.gpu!.shapes!)).toEqual(['b32-t4x4-k4'])
    expect(result.backends.gpu!.shapes!['b32-t4x4-k4'].max_abs_dr_sampled).toBeLessThan(BOUND.f32)
  })
})
