// `bench device` on the software adapter, with tiny sizes: figures, their checks, cancellation.
import { afterAll, describe, expect, it } from 'vitest'
import type { JobProgress } from '../../src/shared/jobs'
import { ProgressPlan } from '../../src/shared/progress-plan'
import { benchDevice, GPU_STEPS } from '../../src/main/workloads/device/bench'
import { fmaThread, measureFma } from '../../src/main/workloads/device/fma'
import { measureReadBandwidth, repeatedBuffer } from '../../src/main/workloads/device/read-bandwidth'
import { getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { timeBatches, warmUp } from '../../src/main/gpu/timing'

afterAll(() => resetGpu())

const tiny = {
  readBytes: 64 * 1024 + 40, // not a multiple of the grid, nor of 16
  repeats: 2,
  tuning: { fma: { workgroups: 3, iters: 33 }, read: { workgroups: 7 }, chunkBytes: 16 * 1024 },
}

describe('benchDevice', () => {
  it('returns positive finite figures with units in their keys, in phase order', async () => {
    const progress: JobProgress[] = []
    const plan = new ProgressPlan((p) => progress.push(p), GPU_STEPS)
    const r = await benchDevice(tiny, { plan })
    plan.finish('done')

    expect(r.adapter).toMatchObject({ architecture: 'swiftshader', isSoftware: true })
    expect(r.timing).toBe('wall clock to completion')
    expect(r.repeats).toBe(2)
    expect(r.read_bytes).toBe(64 * 1024 + 32)
    expect(r.transfer_bytes).toBe(r.read_bytes)
    // FMA work: threads × iters × 64 fmas per trip × 2 FLOP.
    expect(r.fma_flops).toBe(3 * 64 * 33 * 64 * 2)
    const figures = Object.entries(r).filter(([, v]) => typeof v === 'number')
    for (const [key, value] of figures) {
      if (key !== 'repeats') expect(key).toMatch(/_(GB_per_s|GFLOP_per_s|bytes|flops)$/)
      expect([key, Number.isFinite(value) && (value as number) > 0]).toEqual([key, true])
    }

    const phases = [...new Set(progress.map((p) => p.phase))]
    expect(phases).toEqual(['upload', 'read bandwidth', 'readback', 'fma f32', 'done'])
    const fractions = progress.map((p) => p.fraction)
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
    expect(fractions.at(-2)).toBeLessThan(1)
    expect(fractions.at(-1)).toBe(1)
    expect(progress.filter((p) => p.throughput).map((p) => p.throughput!.unit)).toEqual(
      expect.arrayContaining(['GB/s', 'GFLOP/s']),
    )
  })

  it('rejects bad parameters with the value at fault', async () => {
    await expect(benchDevice({ repeats: 0 })).rejects.toMatchObject({ code: 'invalid-argument', message: expect.stringContaining('got 0') })
    const gpu = await getGpu()
    const tooBig = gpu.limits.maxStorageBufferBindingSize + 16
    await expect(benchDevice({ readBytes: tooBig })).rejects.toMatchObject({ code: 'invalid-argument', message: expect.stringContaining(String(tooBig)) })
  })

  it('is cancelled by its signal between phases and batches', async () => {
    const ac = new AbortController()
    const seen: string[] = []
    const run = benchDevice(tiny, {
      signal: ac.signal,
      plan: new ProgressPlan((p) => {
        seen.push(p.phase)
        if (p.phase === 'read bandwidth') ac.abort()
      }, GPU_STEPS),
    })
    await expect(run).rejects.toMatchObject({ code: 'cancelled', message: 'cancelled' })
    expect(seen).not.toContain('readback')

    const early = new AbortController()
    early.abort()
    await expect(benchDevice(tiny, { signal: early.signal })).rejects.toMatchObject({ code: 'cancelled' })
    // The GPU is still fine afterwards.
    expect((await benchDevice({ ...tiny, repeats: 1 })).repeats).toBe(1)
  })
})

describe('correctness checks', () => {
  const options = { workgroupSize: 32, workgroups: 5, repeats: 1, targetBatchMs: 1, maxBatch: 2 }

  it('the bandwidth kernel sums every element, as the CPU does', async () => {
    const gpu = await getGpu()
    const data = new Float32Array(4 * 1001)
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) % 4
    let cpu = 0
    for (const v of data) cpu += v
    const buf = await gpu.storage('bench check', data)
    const r = await measureReadBandwidth(gpu, buf, data.byteLength, cpu, options)
    expect(r.gpuSum).toBe(cpu)
    expect(r.GB_per_s).toBeGreaterThan(0)
    // A kernel that missed one element would be caught.
    await expect(measureReadBandwidth(gpu, buf, data.byteLength, cpu + 1, options)).rejects.toMatchObject({
      code: 'internal',
      message: expect.stringMatching(/sum \d+ differs from the data's exact sum \d+/),
    })
    buf.destroy()
  })

  it('with 8 loads in flight, and over copies made on the GPU, the bandwidth kernel still sums every element', async () => {
    const gpu = await getGpu()
    // 1001 vec4: not a multiple of the grid's 160 readers, nor of 8 loads a trip.
    const data = new Float32Array(4 * 1001)
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 4
    let cpu = 0
    for (const v of data) cpu += v
    const buf = await gpu.storage('bench check 8', data)
    const three = await repeatedBuffer(gpu, buf, data.byteLength, 3)
    try {
      expect(three.size).toBe(3 * data.byteLength)
      for (const [b, bytes, sum] of [[buf, data.byteLength, cpu], [three, 3 * data.byteLength, 3 * cpu]] as const) {
        const r = await measureReadBandwidth(gpu, b, bytes, sum, { ...options, loads: 8 })
        expect(r.gpuSum).toBe(sum)
      }
      await expect(measureReadBandwidth(gpu, three, 3 * data.byteLength, 3 * cpu - 1, { ...options, loads: 8 })).rejects.toMatchObject({ code: 'internal' })
      await expect(measureReadBandwidth(gpu, buf, data.byteLength, cpu, { ...options, loads: 6 })).rejects.toMatchObject({
        code: 'invalid-argument',
        message: expect.stringContaining('got 6'),
      })
    } finally {
      three.destroy()
      buf.destroy()
    }
  })

  it('the FMA kernel agrees with the host for its first and last thread', async () => {
    // x ← x·1 + 1 taken 2·iters times from the seed t + k + 4c, summed over the 8 chains c.
    const closedForm = (t: number, k: number, iters: number) => 8 * (t & 1023) + 8 * k + 112 + 16 * iters
    for (const [t, iters] of [[0, 1], [5, 33], [1500, 100]])
      expect([...fmaThread(t, iters, 1, 1)]).toEqual([0, 1, 2, 3].map((k) => closedForm(t, k, iters)))

    const gpu = await getGpu()
    const r = await measureFma(gpu, { ...options, workgroups: 40, iters: 17 })
    expect(r.checkedThreads).toEqual([0, 40 * 32 - 1])
    expect(r.flops).toBe(40 * 32 * 17 * 64 * 2)
    expect(r.GFLOP_per_s).toBeGreaterThan(0)
  })
})

describe('timeBatches', () => {
  it('grows the batch past a slow first run until it lasts the target', async () => {
    // A simulated GPU: 0.2 ms per item plus 0.5 ms latency, and a first run 40 ms slower.
    const calls: number[] = []
    const run = async (count: number) => {
      calls.push(count)
      return 0.5 + 0.2 * count + (calls.length === 1 ? 40 : 0)
    }
    const seen: number[] = []
    const r = await timeBatches(run, { repeats: 3, targetMs: 50, maxCount: 1000, onRepeat: (_, ms) => seen.push(ms) })
    expect(calls[0]).toBe(1)
    expect(r.count).toBeGreaterThanOrEqual(123) // (50 / 2 − 0.5) / 0.2: at least half the target
    expect(calls.slice(-3)).toEqual([r.count, r.count, r.count])
    expect(r.medianMs).toBeCloseTo(0.5 + 0.2 * r.count)
    expect(seen).toHaveLength(3)

    const capped = await timeBatches(async (n) => n * 0.01, { repeats: 1, targetMs: 50, maxCount: 64 })
    expect(capped.count).toBe(64)
    const ac = new AbortController()
    ac.abort()
    await expect(timeBatches(async () => 0.01, { repeats: 2, targetMs: 50, maxCount: 8, signal: ac.signal })).rejects.toMatchObject({ code: 'cancelled' })
  })
})

describe('warmUp', () => {
  it('repeats the work until the time has passed, at least once, and stops when cancelled', async () => {
    let runs = 0
    const t0 = performance.now()
    const n = await warmUp(async () => {
      runs++
      await new Promise((r) => setTimeout(r, 5))
    }, 40)
    expect(performance.now() - t0).toBeGreaterThanOrEqual(40)
    expect(n).toBe(runs)
    expect(runs).toBeGreaterThanOrEqual(2)
    expect(await warmUp(async () => {}, 0)).toBe(1)
    const ac = new AbortController()
    let after = 0
    const cancelled = warmUp(
      async () => {
        after++
        if (after === 3) ac.abort()
      },
      60_000,
      ac.signal,
    )
    await expect(cancelled).rejects.toMatchObject({ code: 'cancelled' })
    expect(after).toBe(3)
  })
})
