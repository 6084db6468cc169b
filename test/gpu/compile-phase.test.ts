// Every GPU workload compiles its kernels in a phase of its own before its timed runs: on a fresh
// device (nothing compiled yet) no kernel is first asked for while a timed phase runs, and the
// results say how long the compilation took, apart from the timings.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { JobContext } from '../../src/main/engine'
import { getGpu, resetGpu, type Gpu } from '../../src/main/gpu/runtime'
import { ENGINES } from '../../src/main/workloads'
import { COMPILING_KERNELS } from '../../src/shared/phases'
import { workload, type WorkloadId } from '../../src/shared/workloads'
import type { ParamSpec } from '../../src/shared/workloads/schema'
import { validateParams } from '../../src/shared/workloads/schema'

const dir = mkdtempSync(join(tmpdir(), 'paralab-compile-phase-'))
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await resetGpu()
})

/** Each workload's GPU run, small, and where its results keep the compilation's milliseconds. */
const cases: { id: WorkloadId; params: Record<string, unknown>; compileMs: (results: never) => number | undefined }[] = [
  { id: 'stats', params: { backends: ['gpu'], batches: 1 }, compileMs: (r: { files: { backends: { gpu: { compile_ms?: number } } }[] }) => r.files[0].backends.gpu.compile_ms },
  { id: 'paths', params: { backends: ['gpu'], variants: ['baseline'] }, compileMs: (r: { graphs: { runs: { compile_ms?: number }[] }[] }) => r.graphs[0].runs[0].compile_ms },
  {
    id: 'correlation',
    params: { backends: ['gpu'], variants: ['means-naive', 'cross-naive'] },
    compileMs: (r: { runs: { backend: string; compile_ms?: number }[] }) => r.runs.find((x) => x.backend === 'gpu')?.compile_ms,
  },
  { id: 'landslide', params: { backends: ['gpu'], variants: ['fused'], steps: 20, frames: 10 }, compileMs: (r: { runs: Record<string, { compile_ms?: number }> }) => r.runs['gpu/fused'].compile_ms },
]

// SwiftShader takes tens of seconds for the statistics' kernels, more on a busy machine.
const COMPILE_TIMEOUT_MS = 300_000

describe('compiling kernels', () => {
  it.each(cases)('$id: a phase before the timed runs, its time in the results', { timeout: COMPILE_TIMEOUT_MS }, async ({ id, params, compileMs }) => {
    // A new device: its kernels are not compiled yet.
    await resetGpu()
    const engine = ENGINES.find((e) => e.definition.id === id)!
    const def = workload(id)
    const exampleDir = join(dir, id)
    mkdirSync(exampleDir)
    await engine.makeExample?.(exampleDir, new AbortController().signal)
    const fileParam = Object.entries(def.params as Record<string, ParamSpec>).find(([, s]) => s.type === 'files')![0]
    const input = { ...def.example.params, [fileParam]: def.example.files.map((f) => join(exampleDir, f)), repeat: 2, ...params }

    const phases: string[] = []
    /** The phase under way each time a kernel not compiled before was asked for. */
    const firstAsked: string[] = []
    let gpu: Gpu | undefined
    const ctx: JobContext = {
      signal: new AbortController().signal,
      progress: (p) => phases.push(p.phase),
      input: async (p) => p,
      gpu: async () => {
        if (!gpu) {
          gpu = await getGpu()
          const kernel = gpu.kernel.bind(gpu)
          gpu.kernel = (...args) => {
            const before = gpu!.pipelineCount
            const k = kernel(...args)
            if (gpu!.pipelineCount > before) firstAsked.push(phases.at(-1) ?? '')
            return k
          }
        }
        return gpu
      },
    }
    const validated = validateParams(id, def.params, input)
    const outcome = await engine.run(validated as never, ctx)

    const compiling = phases.findIndex((p) => p.startsWith(COMPILING_KERNELS))
    expect(compiling).toBeGreaterThanOrEqual(0)
    expect(firstAsked.length).toBeGreaterThan(0)
    // Kernels are first asked for while compiling, or before (the statistics' begin beside the upload), never once timed runs began.
    const timed = phases.slice(compiling).filter((p) => !p.startsWith(COMPILING_KERNELS))
    for (const phase of firstAsked) expect(timed).not.toContain(phase)
    const ms = compileMs(outcome.results as never)
    expect(ms).toBeGreaterThanOrEqual(0)
    // The tables (CSV, the dashboard's) carry it too.
    const table = (def.tables as (r: unknown) => { columns: string[]; rows: unknown[][] }[])(outcome.results).find((t) => t.columns.includes('compile_ms'))!
    expect(table.rows.map((row) => row[table.columns.indexOf('compile_ms')])).toContain(ms)
    // And the command line's account of the run.
    const envelope = { workload: id, params: validated, timings: outcome.timings, results: outcome.results }
    expect((engine.cli.describe as (r: unknown, e: unknown) => string)(outcome.results, envelope)).toContain('kernels compiled in')
  })
})
