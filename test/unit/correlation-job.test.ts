// The correlation job through the engine contract, with a job context like the backend's: one file,
// the matrix file checked before any work, the GPU skipped with its reason when there is none, a
// sweep, and a cancelled run keeping the backends that finished.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { type CorrelationParams, correlationWorkload } from '../../src/shared/workloads/correlation'
import { validateParams } from '../../src/shared/workloads/schema'
import type { JobContext } from '../../src/main/engine'
import { runCorrelationJob } from '../../src/main/workloads/correlation/run-correlation'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import type { JobProgress } from '../../src/shared/jobs'

const dir = mkdtempSync(join(tmpdir(), 'paralab-correlation-job-'))
const file = join(dir, 'walks.npy')
beforeAll(async () => {
  const w = generateWalks({ series: 20, length: 120, start: 10, eps: 0.01, seed: 9, anomalies: 1 })
  await writeSeries(file, w.values, 20, 120, { layout: 'rows' })
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const params = (p: Record<string, unknown>) => validateParams('correlation', correlationWorkload.params, { files: [file], layout: 'rows', repeat: 1, ...p }) as CorrelationParams

/** A context as the backend makes one: `readable` says which paths it lets the job read. */
function context(opts: { readable?: (path: string) => boolean; onPhase?: (phase: string, abort: () => void) => void } = {}): JobContext {
  const controller = new AbortController()
  return {
    signal: controller.signal,
    progress: (p) => opts.onPhase?.(p.phase, () => controller.abort()),
    input: async (path) => {
      if (opts.readable && !opts.readable(path)) throw new ApiError('invalid-argument', `${path} is outside the data folders`)
      if (path !== file) throw new ApiError('io', `${path}: no such file`)
      return path
    },
    gpu: () => Promise.reject(new ApiError('gpu-unavailable', 'no adapter here')),
  }
}

describe('the correlation job', () => {
  it('answers a pair after its job from the series it kept, and reads the file again once it changed', async () => {
    const phases: string[] = []
    const ctx = context({ onPhase: (phase) => phases.push(phase) })
    const full = await runCorrelationJob(params({ backends: ['serial', 'simd'] }), ctx)
    expect(phases.some((p) => p.startsWith('loading'))).toBe(true)
    phases.length = 0
    const kept = (await runCorrelationJob(params({ pair: ['s0', 's3'] }), ctx)).results.pair!
    expect(phases.some((p) => p.startsWith('loading'))).toBe(false)
    expect(full.results.heatmap).toBeDefined()
    // The kept series are still the file's after the job ran on them: a copy read afresh gives the same overlay.
    const other = join(dir, 'copy.npy')
    copyFileSync(file, other)
    const fresh = (await runCorrelationJob(params({ files: [other], pair: ['s0', 's3'] }), { ...ctx, input: async (p) => p })).results.pair!
    expect(fresh).toEqual(kept)
    // The file rewritten (new values, new modification time): read again.
    const w = generateWalks({ series: 20, length: 120, start: 10, eps: 0.01, seed: 10, anomalies: 0 })
    await new Promise((r) => setTimeout(r, 20))
    await writeSeries(file, w.values, 20, 120, { layout: 'rows', force: true })
    phases.length = 0
    const changed = (await runCorrelationJob(params({ pair: ['s0', 's3'] }), ctx)).results.pair!
    expect(phases.some((p) => p.startsWith('loading'))).toBe(true)
    expect(changed.values).not.toEqual(kept.values)
  })

  it('reads one file only', async () => {
    await expect(runCorrelationJob(params({ files: [file, file] }), context())).rejects.toThrow('correlation reads one file at a time; got 2')
  })

  it('writes a matrix to one new .npy file, checked before any work', async () => {
    const target = join(dir, 'r.npy')
    const done = await runCorrelationJob(params({ matrix: target }), context())
    expect(done.results.matrix).toEqual({ path: target, bytes: 128 + 20 * 20 * 8, dtype: '<f8' })
    // Refused before the file is read: a context that lets nothing be read shows it.
    const nothing = context({ readable: () => false })
    await expect(runCorrelationJob(params({ matrix: target }), nothing)).rejects.toThrow(`${target} exists (use --force to replace it)`)
    await expect(runCorrelationJob(params({ matrix: join(dir, 'r.txt') }), nothing)).rejects.toThrow('must end in .npy or .csv')
    // --force replaces it.
    const again = await runCorrelationJob(params({ matrix: target, force: true }), context())
    expect(again.results.matrix).toEqual({ path: target, bytes: 128 + 20 * 20 * 8, dtype: '<f8' })
  })

  it('skips the GPU with the reason when there is none and other backends were asked for', async () => {
    const done = await runCorrelationJob(params({ backends: ['simd', 'gpu'] }), context())
    expect(done.results.skipped).toEqual([{ backend: 'gpu', reason: 'no adapter here' }])
    expect(done.results.runs.map((r) => r.backend)).toEqual(['simd'])
    expect(Object.keys(done.timings)).toEqual(['simd'])
  })

  it('sweeps every backend over prefixes of the series or of their length', async () => {
    const series = await runCorrelationJob(params({ backends: ['serial', 'workers'], sweep: 4 }), context())
    expect(series.results.sweep!.over).toBe('series')
    expect(series.results.sweep!.points.map((p) => [p.series, p.length, Object.keys(p.backends)])).toEqual([
      [5, 120, ['serial', 'workers']],
      [10, 120, ['serial', 'workers']],
      [15, 120, ['serial', 'workers']],
      [20, 120, ['serial', 'workers']],
    ])
    const length = await runCorrelationJob(params({ backends: ['simd'], sweep: 3, sweepOver: 'length' }), context())
    expect(length.results.sweep!.points.map((p) => [p.series, p.length])).toEqual([
      [20, 40],
      [20, 80],
      [20, 120],
    ])
    for (const p of length.results.sweep!.points) expect(p.backends.simd).toBeGreaterThan(0)
  })

  it('reports each phase as it begins with its own fraction, the bar weighted by cost and never at 100 % with work ahead', async () => {
    const big = join(dir, 'big.npy')
    const w = generateWalks({ series: 300, length: 200, start: 10, eps: 0.01, seed: 3, anomalies: 2 })
    await writeSeries(big, w.values, 300, 200, { layout: 'rows' })
    const events: JobProgress[] = []
    const ctx: JobContext = { ...context(), input: async (p) => p, progress: (p) => events.push(p) }
    await runCorrelationJob(params({ files: [big], backends: ['serial', 'simd'], repeat: 2 }), ctx)
    const phases = [...new Set(events.map((e) => e.phase))]
    expect(phases).toEqual(['loading big.npy', 'serial f64, run 1 of 2', 'serial f64, run 2 of 2', 'simd f64, run 1 of 2', 'simd f64, run 2 of 2', 'ranking', 'done'])
    const fractions = events.map((e) => e.fraction)
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
    // A run is heard from inside, chunk by chunk, not only when it ends.
    const serial = events.filter((e) => e.phase === 'serial f64, run 1 of 2')
    expect(serial.filter((e) => e.phaseFraction! > 0 && e.phaseFraction! < 1).length).toBeGreaterThan(3)
    // Weighted by cost: serial's two runs cost more than simd's two (1.5 against 0.4 a pair-sample), loading little.
    const at = (phase: string) => events.find((e) => e.phase === phase)!.fraction
    expect(at('serial f64, run 1 of 2')).toBeLessThan(0.05)
    expect(at('simd f64, run 1 of 2') - at('serial f64, run 1 of 2')).toBeGreaterThan(at('ranking') - at('simd f64, run 1 of 2'))
    // Ranking has work ahead: it is not reported done before it is.
    expect(at('ranking')).toBeLessThan(0.99)
    expect(events.at(-1)).toMatchObject({ phase: 'done', fraction: 1 })
  })

  it('keeps the backends that finished when cancelled, marked partial, naming those that did not', async () => {
    const done = await runCorrelationJob(
      params({ backends: ['serial', 'simd', 'workers'], repeat: 3 }),
      context({ onPhase: (phase, abort) => phase.startsWith('simd') && abort() }),
    )
    expect(done.partial).toBe(true)
    expect(done.missing).toEqual(['simd', 'workers'])
    expect(done.results.runs.map((r) => r.backend)).toEqual(['serial'])
    expect(done.results.ranking).toHaveLength(20)
  })
})
