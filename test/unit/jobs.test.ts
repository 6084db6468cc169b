import { describe, expect, it } from 'vitest'
import { JobManager, type JobRunners } from '../../src/main/backend/jobs'
import type { JobEvent } from '../../src/shared/jobs'
import type { DeviceBenchResult } from '../../src/shared/device'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function runners(overrides: Partial<JobRunners>): JobRunners {
  const never = { lane: 'cpu' as const, run: async () => Promise.reject(new Error('unused')) }
  return { 'bench-device': never, stats: never, ...overrides } as JobRunners
}

describe('JobManager', () => {
  it('emits progress then the typed result', async () => {
    const jobs = new JobManager(
      runners({
        'bench-device': {
          lane: 'cpu',
          run: async (_p, ctx) => {
            ctx.progress({ phase: 'working', fraction: 0.5 })
            return { read_bandwidth_GB_per_s: 1 } as DeviceBenchResult
          },
        },
      }),
    )
    const events: JobEvent[] = []
    jobs.on('event', (e) => events.push(e))
    const id = jobs.start('bench-device', {})
    const result = await jobs.result<'bench-device'>(id)
    expect(result.read_bandwidth_GB_per_s).toBe(1)
    expect(events.map((e) => e.type)).toEqual(['progress', 'done'])
    expect(events[0]).toMatchObject({ jobId: id, kind: 'bench-device', phase: 'working', fraction: 0.5 })
  })

  it('cancels through the AbortSignal and reports code "cancelled"', async () => {
    let sawAbort = false
    const jobs = new JobManager(
      runners({
        'bench-device': {
          lane: 'cpu',
          run: (_p, ctx) =>
            new Promise((_resolve, reject) =>
              ctx.signal.addEventListener('abort', () => {
                sawAbort = true
                reject(new Error('stopped'))
              }),
            ),
        },
      }),
    )
    const id = jobs.start('bench-device', {})
    const outcome = jobs.result(id).catch((e) => e)
    expect(jobs.cancel(id)).toBe(true)
    const err = await outcome
    expect(sawAbort).toBe(true)
    expect(err).toMatchObject({ code: 'cancelled' })
    expect(jobs.cancel(id)).toBe(false)
  })

  it('runs GPU jobs one at a time, in order', async () => {
    const log: string[] = []
    const gpuJob = {
      lane: 'gpu' as const,
      run: async (p: { repeats?: number }) => {
        log.push(`start ${p.repeats}`)
        await sleep(30)
        log.push(`end ${p.repeats}`)
        return {} as DeviceBenchResult
      },
    }
    const jobs = new JobManager(runners({ 'bench-device': gpuJob }))
    const a = jobs.start('bench-device', { repeats: 1 })
    const b = jobs.start('bench-device', { repeats: 2 })
    await Promise.all([jobs.result(a), jobs.result(b)])
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
  })

  it('a failing job reports its error and does not block the GPU lane', async () => {
    let calls = 0
    const jobs = new JobManager(
      runners({
        'bench-device': {
          lane: 'gpu',
          run: async () => {
            if (calls++ === 0) throw Object.assign(new Error('GPU device lost: test'), { code: 'device-lost' })
            return {} as DeviceBenchResult
          },
        },
      }),
    )
    const first = jobs.start('bench-device', {})
    const second = jobs.start('bench-device', {})
    await expect(jobs.result(first)).rejects.toMatchObject({ code: 'device-lost', message: 'GPU device lost: test' })
    await expect(jobs.result(second)).resolves.toEqual({})
  })
})
