// Cancel during GPU work on the software adapter, where one unsliced dispatch of a correlation ran
// for minutes: the job answers within a bound of the cancel (the piece in flight finishes, the
// next is not submitted) and keeps what finished, marked partial — mid-run for correlation and
// shortest paths, and while the kernels compile.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPILING_KERNELS } from '../../src/shared/phases'
import { validateParams } from '../../src/shared/workloads/schema'
import { correlationWorkload } from '../../src/shared/workloads/correlation'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import type { EngineOutcome, JobContext } from '../../src/main/engine'
import { getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { compileGpuCorrelationKernels } from '../../src/main/workloads/correlation/gpu/gpu-engine'
import { runCorrelationJob } from '../../src/main/workloads/correlation/run-correlation'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import { writeGeneratedGraph } from '../../src/main/workloads/paths/generate-graph'
import { runPathsJob } from '../../src/main/workloads/paths/run-paths'

/** A cancel answers within this: the piece in flight (≤ ~0.5 s) on a busy 2-core machine, and the job's own unwinding. */
const CANCEL_BOUND_MS = 3000

const dir = mkdtempSync(join(tmpdir(), 'paralab-cancel-gpu-'))
const walks = join(dir, 'walks.npy')
const graph = join(dir, 'graph.bin')
beforeAll(async () => {
  // 1 024 series of 1 024: a minute of GPU work on SwiftShader, each stage a dispatch of 5–45 s
  // before it was submitted in pieces.
  const w = generateWalks({ series: 1024, length: 1024, start: 100, eps: 0.01, seed: 3, anomalies: 2 })
  await writeSeries(walks, w.values, 1024, 1024, { layout: 'rows' })
  // V = 1 536: a submit of 64 steps (as the per-k variants had) lasted several seconds.
  await writeGeneratedGraph(graph, { vertices: 1536, edges: 1536 * 8, seed: 5 })
}, 120_000)
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await resetGpu()
})

/**
 * Runs `job` and cancels it `delayMs` after the first phase `when` accepts; resolves with the
 * outcome (or the error) and how long after the cancel the job answered.
 */
async function cancelled<T>(job: (ctx: JobContext) => Promise<T>, when: (phase: string) => boolean, delayMs: number): Promise<{ outcome?: T; error?: unknown; answeredMs: number; phases: string[] }> {
  const controller = new AbortController()
  const phases: string[] = []
  let cancelAt = 0
  let armed = false
  const ctx: JobContext = {
    signal: controller.signal,
    progress: (p) => {
      phases.push(p.phase)
      if (!armed && when(p.phase)) {
        armed = true
        setTimeout(() => {
          cancelAt = performance.now()
          controller.abort()
        }, delayMs)
      }
    },
    input: async (p) => p,
    gpu: getGpu,
  }
  let outcome: T | undefined
  let error: unknown
  try {
    outcome = await job(ctx)
  } catch (e) {
    error = e
  }
  expect(cancelAt, `cancelled (phases: ${phases.join(' | ')}; ${error})`).toBeGreaterThan(0)
  return { outcome, error, answeredMs: performance.now() - cancelAt, phases }
}

describe('cancel during GPU work', () => {
  it('a correlation GPU run mid-way: answered within the bound, the CPU backend kept, marked partial', { timeout: 300_000 }, async () => {
    const gpu = await getGpu()
    // Compiled ahead so that the cancel lands in the timed run itself.
    await compileGpuCorrelationKernels(gpu, 'f64', { means: ['unrolled'], cross: ['register'] })
    const params = validateParams('correlation', correlationWorkload.params, { files: [walks], layout: 'rows', repeat: 1, backends: ['workers-simd', 'gpu'], variants: ['means-unrolled', 'cross-register'] })
    const run = await cancelled((ctx) => runCorrelationJob(params as never, ctx) as Promise<EngineOutcome<{ runs: { backend: string }[] }>>, (p) => p.startsWith(COMPILING_KERNELS), 3000)
    expect(run.error).toBeUndefined()
    expect(run.answeredMs).toBeLessThan(CANCEL_BOUND_MS)
    expect(run.outcome!.partial).toBe(true)
    expect(run.outcome!.results.runs.map((r) => r.backend)).toEqual(['workers-simd'])
  })

  it('a correlation while its kernels compile: answered within the bound', { timeout: 300_000 }, async () => {
    await resetGpu() // a new device: nothing compiled
    const params = validateParams('correlation', correlationWorkload.params, { files: [walks], layout: 'rows', repeat: 1, backends: ['gpu'], variants: ['means-shared', 'means-naive', 'cross-tiled', 'cross-naive'] })
    const run = await cancelled((ctx) => runCorrelationJob(params as never, ctx), (p) => p.startsWith(COMPILING_KERNELS), 1000)
    expect(run.answeredMs).toBeLessThan(CANCEL_BOUND_MS)
    expect((run.error as { code?: string } | undefined)?.code ?? (run.outcome as { partial?: boolean } | undefined)?.partial).toBeTruthy()
  })

  it('a shortest-paths GPU run mid-way: answered within the bound, the CPU run kept, marked partial', { timeout: 300_000 }, async () => {
    const params = validateParams('paths', pathsWorkload.params, { files: [graph], repeat: 1, backends: ['blocked', 'gpu'], variants: ['baseline'] })
    // 3 s after the GPU's compile phase began: its kernel compiled, its steps under way.
    const run = await cancelled((ctx) => runPathsJob(params as never, ctx), (p) => p.startsWith(COMPILING_KERNELS), 3000)
    expect(run.error).toBeUndefined()
    expect(run.answeredMs).toBeLessThan(CANCEL_BOUND_MS)
    expect(run.outcome!.partial).toBe(true)
    expect(run.outcome!.results.graphs[0].runs.map((r) => r.backend)).toEqual(['blocked'])
  })
})
