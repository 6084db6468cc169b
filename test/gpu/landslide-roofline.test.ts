// A landslide job on the software adapter: every GPU run gets its roofline point from its kernel's
// counted work and its measured time per step; CPU runs get none; the results' charts place them.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { kernelCost } from '../../src/main/workloads/landslide/gpu/kernel-costs'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { landslideCharts } from '../../src/shared/workloads/landslide/charts'
import { landslideTables } from '../../src/shared/workloads/landslide/tables'
import type { GpuVariant, LandslidePrecision } from '../../src/shared/workloads/landslide/types'

const DATA = join(__dirname, '../../../shared/data/landslide')
const grids = ['header', 'dem', 'source'].map((f) => join(DATA, `tessina_${f}.txt`))

afterAll(() => resetGpu())

const job = (variants: GpuVariant[], precision: LandslidePrecision) =>
  runLandslideJob(
    { grids, steps: 4, backends: ['active', 'gpu'], variants, precision, frames: 0, repeat: 1 },
    { signal: new AbortController().signal, progress: () => {}, input: async (p) => p, gpu: getGpu },
  )

describe('landslide GPU warm-up in a job', () => {
  it('runs untimed steps of each GPU kernel first, leaving the timed runs and their results as without it', async () => {
    const phases: string[] = []
    const ctx = { signal: new AbortController().signal, progress: (p: { phase: string }) => phases.push(p.phase), input: async (p: string) => p, gpu: getGpu }
    const params = { grids, steps: 4, backends: ['active', 'gpu'] as const, variants: ['fused'] as GpuVariant[], precision: 'f32' as const, frames: 0, repeat: 1 }
    const warm = await runLandslideJob({ ...params, backends: [...params.backends], warmup: 30 }, ctx)
    expect(phases).toContain('warming up gpu/fused')
    expect(phases.indexOf('warming up gpu/fused')).toBeLessThan(phases.map((p) => p.replace(/ · step \d+ of \d+$/, '')).lastIndexOf('simulating gpu/fused'))
    const cold = await runLandslideJob({ ...params, backends: [...params.backends] }, { ...ctx, progress: () => {} })
    expect(warm.results.runs['gpu/fused'].mass_end).toBe(cold.results.runs['gpu/fused'].mass_end)
    expect(warm.results.runs['gpu/fused'].deviation).toEqual(cold.results.runs['gpu/fused'].deviation)
  })
})

describe('landslide roofline points in a job', () => {
  it.each([
    [['fused', 'monolithic'] as GpuVariant[], 'f32' as const],
    [['fused'] as GpuVariant[], 'accurate' as const],
  ])('%s in %s: intensity and rates follow from the counts and ms_per_step', async (variants, precision) => {
    const { results } = await job(variants, precision)
    expect(results.runs.active.roofline).toBeUndefined()
    const interior = (results.grid.rows - 2) * (results.grid.cols - 2)
    for (const v of variants) {
      const run = results.runs[`gpu/${v}`]
      const cost = kernelCost(v, run.precision)!
      const p = run.roofline!
      expect(p, v).toBeDefined()
      expect(p.cells_per_step).toBe(interior)
      expect(p.bytes_per_step).toBe(interior * cost.bytes)
      expect(p.intensity).toBeCloseTo(p.flop_per_step / p.bytes_per_step, 12)
      expect(p.GFLOP_per_s).toBeCloseTo(p.flop_per_step / (run.ms_per_step * 1e6), 6)
      expect(p.GB_per_s).toBeCloseTo(p.bytes_per_step / (run.ms_per_step * 1e6), 6)
    }
    // The runs table carries each point; CPU rows leave it empty.
    const table = landslideTables(results).find((t) => t.name === 'runs')!
    const col = (name: string) => table.columns.indexOf(name)
    for (const row of table.rows) {
      const run = results.runs[row[0] as string]
      expect([row[col('flop_per_byte')], row[col('GFLOP_per_s')], row[col('GB_per_s')]]).toEqual(
        run.roofline ? [run.roofline.intensity, run.roofline.GFLOP_per_s, run.roofline.GB_per_s] : [null, null, null],
      )
    }
    const chart = landslideCharts(results).find((c) => c.name === 'roofline')!
    expect(chart.spec.kind === 'roofline' && chart.spec.data.kernels!.map((k) => k.name)).toEqual(variants.map((v) => `gpu/${v} (${results.runs[`gpu/${v}`].precision})`))
  }, 240_000)
})
