// A run's backends as roofline points (src/shared/workloads/backend-points.ts): a real correlation
// job's CPU backends, derived from their median times and the workload's counted arithmetic, drawn
// under the CPU's roof as this machine measures it; GPU kernels under the GPU's; the costs each
// workload counts. Run `npm run build` first: the workers and the SIMD kernels load from out/.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chartConfig, deviceRoofline, roofAt } from '../../src/shared/charts'
import { backendPoints } from '../../src/shared/workloads/backend-points'
import { type CorrelationParams, correlationWorkload } from '../../src/shared/workloads/correlation'
import { correlationCost } from '../../src/shared/workloads/correlation/compare'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import { cpuStepWork } from '../../src/shared/workloads/landslide/cell-work'
import { pathsCost } from '../../src/shared/workloads/paths/compare'
import { statsCost } from '../../src/shared/workloads/stats/compare'
import { validateParams } from '../../src/shared/workloads/schema'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import { envelope } from '../../src/main/results/envelope'
import { enableRelaxedSimd } from '../../src/main/relaxed-simd'
import { benchCpu } from '../../src/main/workloads/device/cpu-bench'
import { runCorrelationJob } from '../../src/main/workloads/correlation/run-correlation'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import { jobContext } from '../helpers/job-context'
import { landslide, run } from '../renderer/landslide-runs'

enableRelaxedSimd()

const M = 48
const N = 400
const dir = mkdtempSync(join(tmpdir(), 'paralab-backend-points-'))
const file = join(dir, 'walks.npy')
let corr: ResultEnvelope<CorrelationResult>

beforeAll(async () => {
  const w = generateWalks({ series: M, length: N, start: 10, eps: 0.01, seed: 3, anomalies: 1 })
  await writeSeries(file, w.values, M, N, { layout: 'rows' })
  const params = validateParams('correlation', correlationWorkload.params, { files: [file], layout: 'rows', repeat: 3, backends: ['serial', 'simd', 'workers-simd'] }) as CorrelationParams
  const outcome = await runCorrelationJob(params, jobContext())
  corr = envelope('correlation', params, outcome, { createdAt: new Date(), inputs: [] })
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('backendPoints', () => {
  it("derives each CPU backend's point from its median time and the correlation's counted FLOPs and bytes", () => {
    const points = backendPoints(corr)
    expect(points.cpu.map((p) => p.name)).toEqual(['correlation serial', 'correlation simd', 'correlation workers-simd'])
    expect(points.gpu).toEqual([])
    const cost = correlationCost(M, N, 'f64')
    // m·(m − 1)/2 pairs of n multiply-adds dominate; the series read and the matrix written once, in f64.
    expect(cost.flop).toBe(4 * M * N + M * (M - 1) * N + M * (M - 1))
    expect(cost.bytes).toBe((M * N + M * M) * 8)
    for (const [i, backend] of ['serial', 'simd', 'workers-simd'].entries()) {
      const ms = corr.timings[backend].median
      expect(points.cpu[i].intensity).toBe(cost.flop / cost.bytes)
      expect(points.cpu[i].performance).toBeCloseTo(cost.flop / ms / 1e6, 9)
    }
  })

  it("places the CPU backends under the CPU's roof measured here, each labelled with its share of that roof", async () => {
    const cpu = await benchCpu({ readBytes: 8e6, repeats: 2 })
    const data = deviceRoofline({ cpu }, { cpu: backendPoints(corr).cpu })!
    const labels = chartConfig({ kind: 'roofline', data }).data.datasets.map((d) => d.label!)
    expect(labels.slice(0, 2)).toEqual([expect.stringMatching(/^CPU roof: /), expect.stringMatching(/^CPU ridge point: /)])
    for (const [i, p] of data.cpu!.kernels!.entries()) {
      const share = (100 * p.performance) / roofAt(data.cpu!, p.intensity)
      expect(labels[2 + i]).toMatch(new RegExp(`^${p.name} \\(.+% of CPU roof\\)$`))
      expect(share).toBeGreaterThan(0)
    }
    expect(data.kernels).toBeUndefined()
    expect(data.adapter).toBe('')
  })

  it("keeps a GPU's kernels for the GPU's roof and leaves its CPU backends for the CPU's", () => {
    const gpuRun: CorrelationResult['runs'][number] = {
      backend: 'gpu',
      arithmetic: 'f32',
      stages: { means: spread(0.1), squares: spread(0.2), cross: spread(0.3), coefficients: spread(0.1) },
      total: spread(0.7),
      max_abs_dr: 0,
      variants: [{ stage: 'cross', variant: 'register', ms: spread(0.3), flop: 6e6, bytes: 1e5, deviation: 0 }],
    }
    const withGpu = { ...corr, device: { adapter: 'SwiftShader', vendor: 'google', backend: 'Vulkan', software: true }, results: { ...corr.results, runs: [...corr.results.runs, gpuRun] } }
    const points = backendPoints(withGpu)
    expect(points.gpuKernels).toBe(true)
    expect(points.gpu.map((p) => [p.name, p.intensity, p.performance])).toEqual([['correlation gpu cross register (f32)', 60, 20]])
    expect(points.cpu.map((p) => p.name)).toEqual(['correlation serial', 'correlation simd', 'correlation workers-simd'])
  })

  it("derives a landslide CPU run's point from its cells' counted arithmetic, and leaves an uncounted GPU run out", () => {
    const env = landslide(100, { serial: run('serial', 50), active: run('active', 20), 'gpu/fused': run('gpu', 5, undefined, 'fused') })
    const series = { ...(env.results as { series: object }).series, active: [2, 4] }
    const withDebris = { ...env, results: { ...(env.results as object), series } } as ResultEnvelope
    const points = backendPoints(withDebris)
    const serial = cpuStepWork('serial', { rows: 4, cols: 4 }, series as never)
    // 2 × 2 interior cells, or (active) the 3 cells with debris on average.
    expect(cpuStepWork('active', { rows: 4, cols: 4 }, series as never).flop).toBe((serial.flop * 3) / 4)
    expect(points.cpu.map((p) => [p.name, p.intensity, p.performance])).toEqual([
      ['landslide serial', serial.flop / serial.bytes, (100 * serial.flop) / 50 / 1e6],
      ['landslide active', serial.flop / serial.bytes, (100 * serial.flop * 3) / 4 / 20 / 1e6],
    ])
    // Its fused GPU run has no roofline point of its own (no kernel cost recorded): no point rather than a guess.
    expect(points.gpu).toEqual([])
  })

  it("counts statistics' and shortest paths' work: values read once, the matrix read and written once", () => {
    expect(statsCost(1000, 'f64')).toEqual({ flop: 5000, bytes: 8000 })
    expect(statsCost(1000, 'f32')).toEqual({ flop: 5000, bytes: 4000 })
    expect(pathsCost(100)).toEqual({ flop: 2e6, bytes: 80_000 })
  })
})

function spread(median: number) {
  return { median, min: median, max: median }
}
