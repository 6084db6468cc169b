// Every workload's progress, run in process on small inputs: each phase named as it begins with its
// own fraction, the bar weighted by what each phase costs (so it moves through the longest phase and
// never reads 100 % with work ahead), and a time left that is never 0:00 while steps remain. Where
// the weights matter at the studies' sizes, the plans are checked arithmetically.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PlanStep } from '../../src/shared/progress-plan'
import { validateParams } from '../../src/shared/workloads/schema'
import { correlationWorkload, type CorrelationParams } from '../../src/shared/workloads/correlation'
import { landslideWorkload, type LandslideParams } from '../../src/shared/workloads/landslide'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import { statsWorkload } from '../../src/shared/workloads/stats'
import type { JobContext } from '../../src/main/engine'
import { writeFileAtomic } from '../../src/main/io/atomic-write'
import { runCorrelationJob } from '../../src/main/workloads/correlation/run-correlation'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import { writeExample } from '../../src/main/workloads/landslide/example'
import { rankStepsAfterReading, stepsAfterReading as landslideSteps } from '../../src/main/workloads/landslide/progress-steps'
import { runLandslideRanks } from '../../src/main/workloads/landslide/run-ranks'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { writeGeneratedGraph } from '../../src/main/workloads/paths/generate-graph'
import { graphSteps, guessVertices } from '../../src/main/workloads/paths/progress-steps'
import { runPathsJob } from '../../src/main/workloads/paths/run-paths'
import { fileSteps, guessRows } from '../../src/main/workloads/stats/progress-steps'
import { runStatsJob } from '../../src/main/workloads/stats/run-stats'
import { expectSteadyProgress, hearProgress } from '../helpers/progress-checks'
import { jobContext } from '../helpers/job-context'

const dir = mkdtempSync(join(tmpdir(), 'paralab-workload-progress-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A context hearing every event, keeping files as the dashboard's backends do. */
function context(): { ctx: JobContext; check: (longest: (phase: string) => boolean) => number; phases: () => string[] } {
  const { heard, started, progress } = hearProgress()
  const ctx = jobContext({ progress, keep: async (name, _bytes, data) => (await writeFileAtomic(join(dir, name), data), join(dir, name)) })
  return { ctx, check: (longest) => expectSteadyProgress(heard, started, longest), phases: () => [...new Set(heard.map((h) => h.p.phase.replace(/\d+(\.\d+)?/g, '#')))] }
}

/** Each step's share of a plan, by key (steps of one key together). */
function shares(steps: PlanStep[]): Record<string, number> {
  const total = steps.reduce((s, x) => s + x.cost, 0)
  const out: Record<string, number> = {}
  for (const s of steps) out[s.key] = (out[s.key] ?? 0) + s.cost / total
  return out
}

describe('statistics', () => {
  const csv = join(dir, 'wide.csv')
  beforeAll(() => {
    // Wide values: the radix passes run, and each is heard.
    const rows = Array.from({ length: 20_000 }, (_, i) => `${Math.sin(i) * 50},${(i * 7919) % 1000 / 7},${Math.cos(i * 0.37)}`)
    writeFileSync(csv, 'acc_x,acc_y,acc_z\n' + rows.join('\n') + '\n')
  })

  it('loads, then runs each backend with its passes heard, the bar weighted by values computed', async () => {
    const { ctx, check, phases } = context()
    const params = validateParams('stats', statsWorkload.params, { files: [csv], backends: ['serial', 'simd'], repeat: 2, batches: 2 })
    await runStatsJob(params as never, ctx)
    expect(phases()).toEqual(['loading wide.csv', 'loading wide.csv · # M rows', 'serial f# · wide.csv · repeat # of #', 'simd f# · wide.csv · repeat # of #', 'done'])
    expect(check((phase) => phase.startsWith('serial f64'))).toBeGreaterThan(0)
  })

  it('at the study\'s size, loading a 1 GB CSV is most of a default run; serial runs weigh as much again', () => {
    expect(guessRows(85_663_066, 'csv') / 2e6).toBeCloseTo(1, 1)
    const at = (backends: ('serial' | 'workers-simd' | 'gpu')[]) => shares(fileSteps(1e9, 'csv', { columns: 3, backends, precision: 'f64', reference: 'workers-simd', batches: 1, repeat: 10 }))
    expect(at(['workers-simd']).loading).toBeGreaterThan(0.7)
    expect(at(['gpu']).loading).toBeGreaterThan(0.7)
    const serial = at(['serial'])
    expect(serial['run serial']).toBeGreaterThan(0.4)
    expect(serial['run serial']).toBeLessThan(0.7)
  })
})

describe('correlation', () => {
  it('loads, runs each backend chunk by chunk, ranks with work ahead', async () => {
    const file = join(dir, 'walks.npy')
    const w = generateWalks({ series: 300, length: 200, start: 10, eps: 0.01, seed: 3, anomalies: 2 })
    await writeSeries(file, w.values, 300, 200, { layout: 'rows' })
    const { ctx, check, phases } = context()
    await runCorrelationJob(validateParams('correlation', correlationWorkload.params, { files: [file], layout: 'rows', backends: ['serial', 'simd'], repeat: 2 }) as CorrelationParams, ctx)
    expect(phases()).toEqual(['loading walks.npy', 'serial f#, run # of #', 'simd f#, run # of #', 'ranking', 'keeping the matrix', 'done'])
    expect(check((phase) => phase.startsWith('serial f64'))).toBeGreaterThan(0)
  })
})

describe('shortest paths', () => {
  it('reads, runs each backend round by round, checks and writes with work ahead', async () => {
    // Large enough for a serial run to be heard several times from its thread.
    const graph = join(dir, 'g600')
    await writeGeneratedGraph(graph, { vertices: 600, edges: 20_000, seed: 5 })
    const { ctx, check, phases } = context()
    const params = validateParams('paths', pathsWorkload.params, { files: [graph], backends: ['serial', 'blocked'], repeat: 1, output: join(dir, 'g600.bin') })
    await runPathsJob(params, ctx)
    expect(phases()).toEqual(['reading g#', 'serial · g#', 'blocked B=# · g#', 'checking and summarizing · g#', 'writing g#.bin', 'keeping the distances · g#', 'done'])
    expect(check((phase) => phase.startsWith('serial'))).toBeGreaterThan(0)
  })

  it('at 4 096 vertices the runs are the job; a graph\'s vertices are guessed from its size until it is read', () => {
    expect(guessVertices(2_400_008) / 1200).toBeGreaterThan(0.8)
    expect(guessVertices(2_400_008) / 1200).toBeLessThan(1.5)
    const V = 4096
    const s = shares(graphSteps(12 * 0.1 * V * V, 'course', { V, runs: [{ backend: 'serial' }, { backend: 'gpu' }], repeat: 3, successors: false, output: 'csv', keep: true }))
    expect(s['run 0']).toBeGreaterThan(0.98)
    expect(s.reading + s.checking + s.writing + s.keeping).toBeLessThan(0.01)
    // The GPU's run is unknown ahead (a fast one): its compilation weighs as much as its runs.
    expect(s['compile 1']).toBeGreaterThan(0)
  })
})

describe('landslide', () => {
  const grids = landslideWorkload.example.files.map((f) => join(dir, f))
  beforeAll(() => writeExample(dir, landslideWorkload.example.files))
  const params = (p: Partial<LandslideParams>) => validateParams('landslide', landslideWorkload.params, { grids, ...p }) as LandslideParams

  it('loads, simulates each backend step by step, checks and keeps with work ahead', async () => {
    const { ctx, check, phases } = context()
    await runLandslideJob(params({ steps: 200, backends: ['serial', 'active'], repeat: 2 }), ctx)
    expect(phases()).toEqual([
      'loading grids',
      'preparing the grids',
      'simulating serial · step # of #',
      'checking serial',
      'simulating active · step # of #',
      'checking active',
      'maps',
      'keeping the final grid',
      'done',
    ])
    expect(check((phase) => phase.startsWith('simulating serial'))).toBeGreaterThan(0)
  })

  it('in ranks (one here, with checkpoints): loads, simulates its band step by step, finishes with work ahead', async () => {
    const { ctx, check, phases } = context()
    await runLandslideRanks(params({ steps: 200, backends: ['active'], checkpointEvery: 50, checkpointDir: join(dir, 'checkpoints') }), ctx)
    expect(phases()).toEqual(['loading grids', 'preparing the grids', 'simulating active · step # of #', 'finishing the results', 'done'])
    expect(check((phase) => phase.startsWith('simulating active'))).toBeGreaterThan(0)
  })

  it('on the Tessina grid over 4 000 steps a serial run is most of the job beside a GPU\'s; a GPU rank 0 weighs its f64 reference', () => {
    const cells = 610 * 496
    const s = shares(
      landslideSteps({
        cells,
        steps: 4000,
        repeat: 1,
        runs: [{ backend: 'serial' }, { backend: 'gpu', variant: 'fused' }],
        activeFirst: false,
        bands: 1,
        samples: 21,
        arithmetic: 'f32',
        threads: 2,
        warmupMs: 500,
        keep: true,
      }),
    )
    expect(s['run serial']).toBeGreaterThan(0.9)
    expect(s['run gpu/fused'] + s['compile gpu/fused'] + s['warm-up gpu/fused']).toBeGreaterThan(0.01)
    expect(s.maps + s.keeping + s.preparing).toBeLessThan(0.05)
    // A GPU rank 0: its band's steps are quick, the f64 reference over the whole grid is not.
    const rank = shares(rankStepsAfterReading({ cells, bandCells: cells / 4, steps: 4000, backend: 'gpu', arithmetic: 'f32', warmupMs: 0, reference: { steps: 4000, samples: 21 }, finish: true }))
    expect(rank.reference).toBeGreaterThan(rank.simulating)
    expect(rank.finishing).toBeLessThan(0.05)
  })
})
