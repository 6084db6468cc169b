// Kernels compile once per device: a second statistics run in one process (as `paralab serve`
// runs many) creates no pipeline and requests no adapter or device, and gives the same results; a
// device that is lost takes its pipelines with it, and the next one compiles anew. The timeline
// (`--timings`) shows each of those stages.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { JobContext } from '../../src/main/engine'
import { getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { recordTimeline, timelineSpans } from '../../src/main/timeline'
import { runStatsJob } from '../../src/main/workloads/stats/run-stats'
import { statsWorkload } from '../../src/shared/workloads/stats'
import { validateParams } from '../../src/shared/workloads/schema'

const dir = mkdtempSync(join(tmpdir(), 'paralab-pipeline-reuse-'))
afterAll(async () => {
  recordTimeline(false)
  rmSync(dir, { recursive: true, force: true })
  await resetGpu()
})

/** Stages recorded by one call of `run`, with how many spans each. */
async function stagesOf<T>(run: () => Promise<T>): Promise<{ value: T; stages: Record<string, number> }> {
  recordTimeline()
  const value = await run()
  const stages: Record<string, number> = {}
  for (const s of timelineSpans()) stages[s.stage] = (stages[s.stage] ?? 0) + 1
  recordTimeline(false)
  return { value, stages }
}

describe('pipelines across runs of one process', () => {
  it('a second run compiles nothing; a lost device takes its pipelines with it', { timeout: 300_000 }, async () => {
    const csv = join(dir, 'acc.csv')
    // Odd length, ties and a negative range: both selections and both sums have work to do.
    writeFileSync(csv, 'acc_x,acc_y\n' + Array.from({ length: 3001 }, (_, i) => `${(i * 37) % 101 - 50},${(i * i) % 17}`).join('\n') + '\n')
    const params = validateParams('stats', statsWorkload.params, { files: [csv], columns: ['acc_x', 'acc_y'], backends: ['gpu'], repeat: 1 })
    const ctx: JobContext = { signal: new AbortController().signal, progress: () => {}, input: async (p) => p, gpu: getGpu }
    await resetGpu()

    const first = await stagesOf(() => runStatsJob(params, ctx))
    const gpu = await getGpu()
    // The f64 statistics use nine pipelines (seven entry points, two of them per pass), each created once.
    expect(first.stages['pipeline creation']).toBe(9)
    expect(gpu.pipelineCount).toBe(9)
    expect(first.stages['GPU adapter request']).toBe(1)
    expect(first.stages['GPU device request']).toBe(1)
    expect(first.stages['load acc.csv']).toBe(1)
    expect(first.stages['gpu f64: compute']).toBe(1)

    const second = await stagesOf(() => runStatsJob(params, ctx))
    expect(second.stages['pipeline creation']).toBeUndefined()
    expect(second.stages['GPU adapter request']).toBeUndefined()
    expect(second.stages['GPU device request']).toBeUndefined()
    expect(await getGpu()).toBe(gpu)
    expect(gpu.pipelineCount).toBe(9)
    const columns = (r: typeof first.value) => r.results.files[0].backends.gpu.columns
    expect(columns(second.value)).toEqual(columns(first.value))
    // Its wait for kernels is only the check that they are ready.
    expect(second.value.results.files[0].backends.gpu.compile_ms).toBeLessThan(first.value.results.files[0].backends.gpu.compile_ms! + 1)

    // A lost device: the next one starts with no pipelines (a run compiles them again, as the first did).
    gpu.device.destroy()
    await gpu.device.lost
    const third = await stagesOf(() => getGpu())
    expect(third.value).not.toBe(gpu)
    expect(third.stages['GPU device request']).toBe(1)
    expect(third.value.pipelineCount).toBe(0)
  })
})
