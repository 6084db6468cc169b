// The landslide GPU kernels' counted work and the roofline points a run gets from it, and the
// roofline chart: kernels' points labelled by run, on log axes, with or without the device's roof.
import { describe, expect, it } from 'vitest'
import type { ChartDataset } from 'chart.js'
import { chartConfig } from '../../src/shared/charts'
import { ApiError } from '../../src/shared/errors'
import { landslideCharts } from '../../src/shared/workloads/landslide/charts'
import { DOUBLE_FLOAT_VARIANTS } from '../../src/main/workloads/landslide/gpu/kernels'
import { GPU_VARIANTS, type LandslideResult, type LandslideRun } from '../../src/shared/workloads/landslide/types'
import { kernelCost, rooflinePoint } from '../../src/main/workloads/landslide/gpu/kernel-costs'
import { meanDebrisCells } from '../../src/shared/workloads/landslide/cell-work'

const gpuRun = (variant: LandslideRun['variant'], precision: LandslideRun['precision'], ms_per_step: number): LandslideRun => ({
  backend: 'gpu',
  variant,
  precision,
  ms: ms_per_step * 100,
  ms_min: ms_per_step * 100,
  ms_max: ms_per_step * 100,
  ms_per_step,
  mass_end: 1,
})

describe('landslide kernel costs', () => {
  it('counts every variant in f32 and the double-float ones in double-float, none in f64', () => {
    for (const v of GPU_VARIANTS) expect(kernelCost(v, 'f32'), v).toBeDefined()
    for (const v of GPU_VARIANTS) expect(kernelCost(v, 'double-float') !== undefined, v).toBe(DOUBLE_FLOAT_VARIANTS.includes(v))
    expect(kernelCost('fused', 'f64')).toBeUndefined()
  })

  it('follows the shaders: fused does five minimizations (where debris is) for one pass of 13 bytes, the three-pass kernels one for 65', () => {
    const mono = kernelCost('monolithic', 'f32')!
    const fused = kernelCost('fused', 'f32')!
    // 16 B reset; z, h, mask read and 16 B written; h and 16 B read, h written.
    expect(mono.bytes).toBe(16 + 4 + 4 + 1 + 16 + 4 + 16 + 4)
    expect(fused.bytes).toBe(4 + 4 + 1 + 4)
    const update = 8
    // fused and fused2 skip dry cells among dry neighbours: their work is all per debris cell.
    expect(fused.flop).toBe(0)
    expect(fused.debrisFlop - update).toBe(5 * (mono.flop - update))
    for (const v of ['grid-stride', 'tiled', 'tiled-halo'] as const) expect(kernelCost(v, 'f32')).toEqual(mono)
    // Two steps a dispatch: half fused's bytes a step, more FLOPs (the rings computed again).
    const fused2 = kernelCost('fused2', 'f32')!
    expect(fused2.bytes).toBe(fused.bytes / 2)
    expect(fused2.flop).toBe(0)
    expect(fused2.debrisFlop).toBeGreaterThan(mono.flop)
    // Double-float: twice the bytes of every value (the wall bits stay), its outflows only where debris is.
    const df = kernelCost('monolithic', 'double-float')!
    expect(df.bytes).toBe(2 * mono.bytes - 1)
    expect(df.debrisFlop).toBeGreaterThan(10 * (mono.flop - update))
    expect(kernelCost('active', 'f32')).toMatchObject({ domain: 'debris', bytes: mono.bytes - 16 })
  })

  it("gives a run's intensity, GFLOP/s and GB/s from its time per step and the counts", () => {
    const grid = { rows: 102, cols: 52 } // 100 × 50 interior cells
    const cost = kernelCost('monolithic', 'f32')!
    const p = rooflinePoint(gpuRun('monolithic', 'f32', 0.5), grid, 400)!
    expect(p.cells_per_step).toBe(5000)
    expect(p.flop_per_step).toBe(5000 * cost.flop)
    expect(p.bytes_per_step).toBe(5000 * cost.bytes)
    expect(p.intensity).toBeCloseTo(cost.flop / cost.bytes, 12)
    expect(p.GFLOP_per_s).toBeCloseTo((5000 * cost.flop) / 0.5e-3 / 1e9, 9)
    expect(p.GB_per_s).toBeCloseTo((5000 * cost.bytes) / 0.5e-3 / 1e9, 9)
    // Twice the time, half the rates; the intensity stays.
    const slow = rooflinePoint(gpuRun('monolithic', 'f32', 1), grid, 400)!
    expect(slow.GFLOP_per_s).toBeCloseTo(p.GFLOP_per_s / 2, 9)
    expect(slow.intensity).toBe(p.intensity)
  })

  it('counts the active kernels over the debris and the double-float outflows only where debris is', () => {
    const grid = { rows: 102, cols: 52 }
    const active = rooflinePoint(gpuRun('active', 'f32', 1), grid, 400)!
    expect(active.cells_per_step).toBe(400)
    const df = kernelCost('monolithic', 'double-float')!
    const p = rooflinePoint(gpuRun('monolithic', 'double-float', 1), grid, 400)!
    expect(p.flop_per_step).toBe(5000 * df.flop + 400 * df.debrisFlop)
    expect(meanDebrisCells({ step: [0, 1], mass: [1, 1], flooded: [1, 1], max_thickness: [1, 1], active: [300, 500] })).toBe(400)
  })

  it('gives CPU runs, untimed runs and runs without a cost no point', () => {
    const grid = { rows: 10, cols: 10 }
    expect(rooflinePoint({ ...gpuRun(undefined, 'f64', 1), backend: 'serial' }, grid, 10)).toBeUndefined()
    expect(rooflinePoint(gpuRun('fused', 'f32', 0), grid, 10)).toBeUndefined()
    expect(rooflinePoint(gpuRun('tiled', 'double-float', 1), grid, 10)).toBeUndefined()
  })
})

describe('landslide roofline chart', () => {
  const grid = { rows: 102, cols: 52 }
  const runs: Record<string, LandslideRun> = {
    serial: { backend: 'serial', precision: 'f64', ms: 100, ms_min: 100, ms_max: 100, ms_per_step: 1, mass_end: 1 },
    'gpu/fused': gpuRun('fused', 'f32', 0.01),
    'gpu/monolithic': gpuRun('monolithic', 'double-float', 0.05),
  }
  for (const run of Object.values(runs)) {
    const p = rooflinePoint(run, grid, 400)
    if (p) run.roofline = p
  }
  const result = {
    grid: { ...grid, cellsize: 10, xllcorner: 0, yllcorner: 0, nodata: null, walls: 0, files: { dem: 'd', source: 's' } },
    steps: 100,
    reference: { backend: 'serial', md5: '', mass_start: 1, mass_end: 1 },
    runs,
    series: { step: [], mass: [], flooded: [], max_thickness: [], active: [] },
    maps: [],
    skipped: [],
  } satisfies LandslideResult

  it('places every GPU run, labelled by run and arithmetic, on log axes without a roof it did not measure', () => {
    const chart = landslideCharts(result).find((c) => c.name === 'roofline')!
    expect(chart.spec.kind).toBe('roofline')
    const cfg = chartConfig(chart.spec)
    const datasets = cfg.data.datasets as ChartDataset<'line'>[]
    expect(datasets.map((d) => d.label)).toEqual(['gpu/fused (f32)', 'gpu/monolithic (double-float)'])
    expect(datasets[0].data).toEqual([{ x: runs['gpu/fused'].roofline!.intensity, y: runs['gpu/fused'].roofline!.GFLOP_per_s }])
    expect([cfg.options?.scales?.x?.type, cfg.options?.scales?.y?.type]).toEqual(['logarithmic', 'logarithmic'])
    // Every point inside the axes.
    const x = cfg.options!.scales!.x as { min: number; max: number }
    for (const d of datasets) for (const pt of d.data as { x: number }[]) expect(pt.x > x.min && pt.x < x.max).toBe(true)
  })

  it('names the adapter the envelope ran on, and draws no roofline without GPU runs', () => {
    const envelope = { device: { adapter: 'NVIDIA H100', vendor: 'nvidia', backend: 'Vulkan', software: false } } as never
    const chart = landslideCharts(result, envelope).find((c) => c.name === 'roofline')!
    expect(chartConfig(chart.spec).options?.plugins?.title?.text).toBe('Roofline — NVIDIA H100')
    expect(landslideCharts({ ...result, runs: { serial: runs.serial } }).some((c) => c.name === 'roofline')).toBe(false)
  })

  it('draws the kernels under a roof when the ceilings are known, and refuses a half-known roof', () => {
    const kernels = [{ name: 'k', intensity: 2, performance: 50 }]
    const withRoof = chartConfig({ kind: 'roofline', data: { adapter: 'A', peak_GFLOP_per_s: 1000, bandwidth_GB_per_s: 100, kernels } })
    expect(withRoof.data.datasets.map((d) => d.label)).toEqual(['roof: 100 GB/s, 1,000 GFLOP/s', 'ridge point: 10 FLOP/byte', 'k (25% of roof)'])
    expect(() => chartConfig({ kind: 'roofline', data: { adapter: 'A', peak_GFLOP_per_s: 1000, kernels } })).toThrow(ApiError)
    expect(() => chartConfig({ kind: 'roofline', data: { adapter: 'A' } })).toThrow(/no ceilings and no kernels/)
  })
})
