// The CPU part of `bench device`, on this machine's cores: the read of a buffer across the worker
// pool and the f64 multiply-add chains of each CPU backend, their exact sums, medians of the
// repeats, cancellation; the last-level caches read from a sysfs tree; a device job on a machine
// without a GPU measuring the CPU alone. Run `npm run build` first: the threads and the SIMD
// kernels load from out/.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobProgress } from '../../src/shared/jobs'
import { deviceEngine } from '../../src/main/workloads/device'
import { ProgressPlan } from '../../src/shared/progress-plan'
import { benchCpu, CPU_MEASUREMENTS, CPU_STEPS, cpuReadBytes, MIN_READ_BYTES } from '../../src/main/workloads/device/cpu-bench'
import { lastLevelCacheBytes } from '../../src/main/workloads/device/cpu-caches'
import { scalarFma, scalarFmaSum } from '../../src/main/workloads/device/cpu-kernels'
import { jobContext, NO_ADAPTER } from '../helpers/job-context'

const small = { readBytes: 4e6, repeats: 2, threads: 2 }
const RATES = ['read_bandwidth_GB_per_s', 'serial_GFLOP_per_s', 'simd_GFLOP_per_s', 'workers_GFLOP_per_s', 'workers_simd_GFLOP_per_s'] as const

describe('benchCpu', () => {
  it('measures read bandwidth and each CPU backend\'s FLOP/s: positive finite medians of the repeats, phase after phase', async () => {
    const progress: JobProgress[] = []
    const samples: Record<string, number[]> = {}
    const plan = new ProgressPlan((p) => progress.push(p), CPU_STEPS)
    const r = await benchCpu(small, { plan, sample: (m, ms) => (samples[m] ??= []).push(ms) })
    plan.finish('done')
    expect(r).toMatchObject({ threads: 2, repeats: 2, timing: expect.stringMatching(/^wall clock/) })
    expect(r.cpu.length).toBeGreaterThan(0)
    expect(['relaxed', 'simd128']).toContain(r.simd)
    // 4 MB in whole 128-byte trips per thread.
    expect(r.read_bytes % (2 * 128)).toBe(0)
    expect(4e6 - r.read_bytes).toBeLessThan(2 * 128)
    for (const key of RATES) expect([key, Number.isFinite(r[key]) && r[key] > 0]).toEqual([key, true])

    // Each measurement's repeats, as timings; the phases in order, the fraction never going back.
    expect(Object.keys(samples)).toEqual([...CPU_MEASUREMENTS])
    for (const m of CPU_MEASUREMENTS) expect(samples[m].length, m).toBe(2)
    expect([...new Set(progress.map((p) => p.phase))]).toEqual([...CPU_MEASUREMENTS, 'done'])
    const fractions = progress.map((p) => p.fraction)
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
    // Each measurement moves the bar by its weight as its repeats go.
    expect(new Set(fractions).size).toBeGreaterThan(CPU_MEASUREMENTS.length * 2)
    expect(fractions.at(-2)).toBeLessThan(1)
    expect(fractions.at(-1)).toBe(1)
    expect(progress.filter((p) => p.throughput).map((p) => p.throughput!.unit)).toEqual(expect.arrayContaining(['GB/s', 'GFLOP/s']))
  })

  it('reads well beyond the last-level caches by default, within a quarter of free memory', () => {
    expect(cpuReadBytes(null, 64e9)).toBe(MIN_READ_BYTES)
    expect(cpuReadBytes(32 * 2 ** 20, 64e9)).toBe(MIN_READ_BYTES)
    // A server's 8 chiplets of 32 MiB: four times their whole.
    expect(cpuReadBytes(256 * 2 ** 20, 64e9)).toBe(1024 * 2 ** 20)
    expect(cpuReadBytes(256 * 2 ** 20, 2e9)).toBe(0.5e9)
  })

  it('the scalar chains sum exactly what the host expects, so work skipped would show', () => {
    expect(scalarFma(1000, 1, 1)).toBe(scalarFmaSum(1000))
    expect(scalarFma(1000, 1, 2)).not.toBe(scalarFmaSum(1000))
  })

  it('rejects bad parameters with the value at fault', async () => {
    await expect(benchCpu({ ...small, repeats: 0 })).rejects.toMatchObject({ code: 'invalid-argument', message: expect.stringContaining('got 0') })
    await expect(benchCpu({ ...small, readBytes: 100 })).rejects.toMatchObject({ code: 'invalid-argument', message: expect.stringContaining('got 100') })
  })

  it('is cancelled by its signal, between measurements and inside one, and runs again afterwards', async () => {
    const ac = new AbortController()
    const seen: string[] = []
    const run = benchCpu(small, {
      signal: ac.signal,
      plan: new ProgressPlan((p) => {
        seen.push(p.phase)
        if (p.phase === 'cpu fma simd') ac.abort()
      }, CPU_STEPS),
    })
    await expect(run).rejects.toMatchObject({ code: 'cancelled' })
    expect(seen).not.toContain('cpu fma workers')

    // Inside the read: after its first timed repeat of three, the threads are stopped.
    const inside = new AbortController()
    const repeats: number[] = []
    const read = benchCpu(
      { ...small, repeats: 3 },
      {
        signal: inside.signal,
        plan: new ProgressPlan((p) => {
          if (p.throughput) inside.abort()
        }, CPU_STEPS),
        sample: (_, ms) => repeats.push(ms),
      },
    )
    await expect(read).rejects.toMatchObject({ code: 'cancelled' })
    expect(repeats).toEqual([])

    const early = new AbortController()
    early.abort()
    await expect(benchCpu(small, { signal: early.signal })).rejects.toMatchObject({ code: 'cancelled' })
    expect((await benchCpu({ ...small, repeats: 1 })).repeats).toBe(1)
  })
})

describe('lastLevelCacheBytes', () => {
  const root = mkdtempSync(join(tmpdir(), 'paralab-caches-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  function cache(cpu: number, index: number, level: number, type: string, size: string, shared: string): void {
    const dir = join(root, `cpu${cpu}`, 'cache', `index${index}`)
    mkdirSync(dir, { recursive: true })
    for (const [f, v] of Object.entries({ level, type, size, shared_cpu_list: shared })) writeFileSync(join(dir, f), `${v}\n`)
  }

  it('adds each last-level cache once, by the CPUs that share it', () => {
    // Two chiplets of 2 CPUs, an L3 of 32 MiB each; private L1 and L2.
    for (const cpu of [0, 1, 2, 3]) {
      cache(cpu, 0, 1, 'Data', '32K', String(cpu))
      cache(cpu, 1, 1, 'Instruction', '32K', String(cpu))
      cache(cpu, 2, 2, 'Unified', '1024K', String(cpu))
      cache(cpu, 3, 3, 'Unified', '32768K', cpu < 2 ? '0-1' : '2-3')
    }
    expect(lastLevelCacheBytes(root)).toBe(64 * 2 ** 20)
    expect(lastLevelCacheBytes(join(root, 'absent'))).toBeNull()
  })
})

describe('a device job on a machine without a GPU', () => {
  it('says why there is no GPU and measures the CPU alone', async () => {
    const events: JobProgress[] = []
    const out = await deviceEngine.run({ measure: true, repeat: 1 } as never, jobContext({ events }))
    expect(out.results.info).toMatchObject({ available: false, reason: NO_ADAPTER })
    expect(out.results.bench).toBeUndefined()
    expect(out.results.cpu!.workers_simd_GFLOP_per_s).toBeGreaterThan(0)
    expect(Object.keys(out.timings)).toEqual([...CPU_MEASUREMENTS])
    for (const m of CPU_MEASUREMENTS) expect(out.timings[m].runs).toBe(1)
    // Without a GPU the CPU's part is the whole bar.
    expect(events[0].fraction).toBe(0)
    expect(events.at(-1)!.fraction).toBe(1)
  })

  it('measures nothing when not asked to', async () => {
    const out = await deviceEngine.run({ measure: false } as never, jobContext())
    expect(out.results).toEqual({ info: expect.objectContaining({ available: false }) })
    expect(out.timings).toEqual({})
  })
})
