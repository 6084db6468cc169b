import { describe, expect, it } from 'vitest'
import { JobManager, type JobControl } from '../../src/main/backend/jobs'
import type { JobEvent } from '../../src/shared/jobs'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A minimal envelope carrying `results`. */
function envelopeOf<R>(results: R, workload = 'device'): ResultEnvelope<R> {
  return {
    workload,
    paralabVersion: '0.0.0-test',
    createdAt: new Date(0).toISOString(),
    params: {},
    input: { files: [] },
    host: { cpu: 'test', cores: 1, memoryBytes: 1, os: 'test', node: 'v0' },
    timings: {},
    results,
  }
}

describe('JobManager', () => {
  it('emits progress then done with the envelope, naming the workload', async () => {
    const jobs = new JobManager()
    const events: JobEvent[] = []
    jobs.on('event', (e) => events.push(e))
    const env = envelopeOf({ bench: { read_bandwidth_GB_per_s: 1 } })
    const id = jobs.start({
      workload: 'device',
      lane: 'cpu',
      run: async (ctx) => {
        ctx.progress({ phase: 'working', fraction: 0.5, throughput: { value: 3, unit: 'GB/s' } })
        return env
      },
    })
    const result = await jobs.result(id)
    expect(result).toBe(env)
    expect(events.map((e) => e.type)).toEqual(['progress', 'done'])
    expect(events[0]).toEqual({ type: 'progress', jobId: id, workload: 'device', phase: 'working', fraction: 0.5, throughput: { value: 3, unit: 'GB/s' } })
    expect(events[1]).toEqual({ type: 'done', jobId: id, workload: 'device', envelope: env })
  })

  it('throttles progress, but never the last step', async () => {
    const jobs = new JobManager()
    const events: JobEvent[] = []
    jobs.on('event', (e) => events.push(e))
    const id = jobs.start({
      workload: 'stats',
      lane: 'cpu',
      run: async (ctx) => {
        for (let i = 1; i <= 50; i++) ctx.progress({ phase: 'computing', fraction: i / 50 })
        return envelopeOf({ files: [] }, 'stats')
      },
    })
    await jobs.result(id)
    const progress = events.filter((e): e is Extract<JobEvent, { type: 'progress' }> => e.type === 'progress')
    // The first step goes out at once, the 48 after it within 100 ms are dropped, the last (fraction 1) goes out.
    expect(progress.map((p) => p.fraction)).toEqual([1 / 50, 1])
    expect(progress.every((p) => p.workload === 'stats')).toBe(true)
  })

  it('cancels through the AbortSignal and reports code "cancelled"', async () => {
    let sawAbort = false
    let started!: () => void
    const running = new Promise<void>((r) => (started = r))
    const jobs = new JobManager()
    const events: JobEvent[] = []
    jobs.on('event', (e) => events.push(e))
    const id = jobs.start({
      workload: 'device',
      lane: 'gpu',
      run: (ctx: JobControl) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            sawAbort = true
            reject(new Error('stopped'))
          })
          started()
        }),
    })
    const outcome = jobs.result(id).catch((e) => e)
    await running
    expect(jobs.cancel(id)).toBe(true)
    const err = await outcome
    expect(sawAbort).toBe(true)
    expect(err).toMatchObject({ code: 'cancelled', message: 'cancelled' })
    expect(events).toEqual([{ type: 'failed', jobId: id, workload: 'device', error: { code: 'cancelled', message: 'cancelled' } }])
    expect(jobs.cancel(id)).toBe(false)
    expect(jobs.cancel('no-such-job')).toBe(false)
    await expect(jobs.result('no-such-job')).rejects.toMatchObject({ code: 'invalid-argument' })
  })

  it('ends a cancelled job that kept some results as cancelled, with them', async () => {
    const jobs = new JobManager()
    const events: JobEvent[] = []
    jobs.on('event', (e) => events.push(e))
    const partial = { ...envelopeOf({ files: [] }, 'stats'), partial: true }
    const id = jobs.start({ workload: 'stats', lane: 'cpu', run: async () => partial })
    expect(await jobs.result(id)).toBe(partial)
    expect(events).toEqual([{ type: 'failed', jobId: id, workload: 'stats', error: { code: 'cancelled', message: 'cancelled' }, partial }])
  })

  it('cancels a GPU job waiting in the lane before it starts', async () => {
    const jobs = new JobManager()
    let release!: () => void
    const firstRunning = new Promise<void>((started) => {
      jobs.start({
        workload: 'device',
        lane: 'gpu',
        run: async (ctx) => {
          await ctx.gpuLane()
          return new Promise((r) => {
            release = () => r(envelopeOf(1))
            started()
          })
        },
      })
    })
    let secondRan = false
    const second = jobs.start({
      workload: 'device',
      lane: 'gpu',
      run: async (ctx) => {
        await ctx.gpuLane()
        secondRan = true
        return envelopeOf(2)
      },
    })
    const secondOutcome = jobs.result(second).catch((e) => e)
    await firstRunning
    expect(jobs.cancel(second)).toBe(true)
    release()
    expect(await secondOutcome).toMatchObject({ code: 'cancelled' })
    expect(secondRan).toBe(false)
  })

  it('runs GPU jobs one at a time, in order, while CPU jobs run beside them', async () => {
    const log: string[] = []
    const jobs = new JobManager()
    const job = (name: string, lane: 'gpu' | 'cpu', ms: number) =>
      jobs.start({
        workload: 'stats',
        lane,
        run: async (ctx) => {
          if (lane === 'gpu') await ctx.gpuLane()
          log.push(`start ${name}`)
          await sleep(ms)
          log.push(`end ${name}`)
          return envelopeOf(name, 'stats')
        },
      })
    const a = job('gpu 1', 'gpu', 40)
    const b = job('gpu 2', 'gpu', 10)
    const c = job('cpu', 'cpu', 5)
    const done = await Promise.all([jobs.result(a), jobs.result(b), jobs.result(c)])
    expect(done.map((e) => e.results)).toEqual(['gpu 1', 'gpu 2', 'cpu'])
    expect(log.filter((l) => l.includes('gpu'))).toEqual(['start gpu 1', 'end gpu 1', 'start gpu 2', 'end gpu 2'])
    // The CPU job neither waited for the GPU lane nor held it up.
    expect(log.indexOf('end cpu')).toBeLessThan(log.indexOf('end gpu 1'))
  })

  it('a failing job reports its error and does not block the GPU lane', async () => {
    let calls = 0
    const jobs = new JobManager()
    const events: JobEvent[] = []
    jobs.on('event', (e) => events.push(e))
    const spec = {
      workload: 'device' as const,
      lane: 'gpu' as const,
      run: async (ctx: JobControl) => {
        await ctx.gpuLane()
        if (calls++ === 0) throw Object.assign(new Error('GPU device lost: test'), { code: 'device-lost' })
        return envelopeOf({})
      },
    }
    const first = jobs.start(spec)
    const second = jobs.start(spec)
    const third = jobs.start({
      ...spec,
      run: async () => {
        throw new TypeError('boom')
      },
    })
    await expect(jobs.result(first)).rejects.toMatchObject({ code: 'device-lost', message: 'GPU device lost: test' })
    await expect(jobs.result(second)).resolves.toMatchObject({ results: {} })
    // Anything else thrown becomes an 'internal' error with its message.
    await expect(jobs.result(third)).rejects.toMatchObject({ code: 'internal', message: 'boom' })
    expect(events.find((e) => e.jobId === first)).toEqual({
      type: 'failed',
      jobId: first,
      workload: 'device',
      error: { code: 'device-lost', message: 'GPU device lost: test' },
    })
    expect(events.find((e) => e.jobId === second)?.type).toBe('done')
  })

  it('cancelAll stops every running job', async () => {
    const jobs = new JobManager()
    const hang = (ctx: JobControl) => new Promise<ResultEnvelope>((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))))
    const a = jobs.start({ workload: 'stats', lane: 'cpu', run: hang })
    const b = jobs.start({ workload: 'device', lane: 'gpu', run: hang })
    const outcomes = Promise.all([jobs.result(a).catch((e) => e.code), jobs.result(b).catch((e) => e.code)])
    await sleep(5)
    jobs.cancelAll()
    expect(await outcomes).toEqual(['cancelled', 'cancelled'])
  })
})

describe('the GPU lane', () => {
  it('is taken when a job first asks for the device: a GPU-lane job running CPU backends only waits for no one', async () => {
    const jobs = new JobManager()
    const log: string[] = []
    let releaseGpu!: () => void
    const holder = jobs.start({
      workload: 'stats',
      lane: 'gpu',
      run: async (ctx) => {
        await ctx.gpuLane()
        log.push('gpu job holds the lane')
        await new Promise<void>((r) => (releaseGpu = r))
        return envelopeOf('gpu', 'stats')
      },
    })
    await sleep(5)
    // A paths job on the CPU backends: its engine never asks for the device.
    const cpuOnly = jobs.start({ workload: 'paths', lane: 'gpu', run: async () => (log.push('cpu run'), envelopeOf('cpu', 'paths')) })
    const waiter = jobs.start({
      workload: 'device',
      lane: 'gpu',
      run: async (ctx) => {
        await ctx.gpuLane()
        log.push('second gpu job')
        return envelopeOf('second')
      },
    })
    await jobs.result(cpuOnly)
    expect(log).toEqual(['gpu job holds the lane', 'cpu run'])
    releaseGpu()
    await Promise.all([jobs.result(holder), jobs.result(waiter)])
    expect(log).toEqual(['gpu job holds the lane', 'cpu run', 'second gpu job'])
  })

  it('a job that takes the lane and fails, or is cancelled while waiting, passes it on', async () => {
    const jobs = new JobManager()
    const failing = jobs.start({
      workload: 'device',
      lane: 'gpu',
      run: async (ctx) => {
        await ctx.gpuLane()
        await sleep(20)
        throw new Error('boom')
      },
    })
    const cancelled = jobs.start({ workload: 'device', lane: 'gpu', run: async (ctx) => (await ctx.gpuLane(), envelopeOf('never')) })
    const last = jobs.start({ workload: 'device', lane: 'gpu', run: async (ctx) => (await ctx.gpuLane(), envelopeOf('last')) })
    await sleep(5)
    jobs.cancel(cancelled)
    await expect(jobs.result(cancelled)).rejects.toMatchObject({ code: 'cancelled' })
    await expect(jobs.result(failing)).rejects.toMatchObject({ message: 'boom' })
    await expect(jobs.result(last)).resolves.toMatchObject({ results: 'last' })
  })

  it('a CPU-lane job cannot take it', async () => {
    const jobs = new JobManager()
    const id = jobs.start({ workload: 'stats', lane: 'cpu', run: async (ctx) => (await ctx.gpuLane(), envelopeOf(1)) })
    await expect(jobs.result(id)).rejects.toMatchObject({ code: 'internal' })
  })
})
