import { effectScope } from 'vue'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import type { DeviceBenchResult } from '../../src/shared/device'
import { useJob } from '../../src/renderer/composables/useJob'
import { FakeApi } from './fake-api'

const result = { read_bandwidth_GB_per_s: 1 } as DeviceBenchResult

describe('useJob', () => {
  it('applies events that arrive before startJob names the job, ignores other jobs and kinds', async () => {
    const api = new FakeApi()
    // This backend reports progress before it answers startJob.
    api.startJob = async (kind) => {
      api.emit({ type: 'progress', jobId: 'job-1', kind, phase: 'early', fraction: 0.1 })
      api.emit({ type: 'progress', jobId: 'job-0', kind, phase: 'someone else', fraction: 0.9 })
      return 'job-1'
    }
    const job = useJob(api, 'bench-device')
    await job.start({})
    expect(job.jobId.value).toBe('job-1')
    expect(job.progress.value).toEqual({ phase: 'early', fraction: 0.1, throughput: undefined })
    api.emit({ type: 'progress', jobId: 'job-1', kind: 'stats', phase: 'wrong kind', fraction: 0.5 })
    expect(job.progress.value?.phase).toBe('early')
    api.emit({ type: 'done', jobId: 'job-1', kind: 'bench-device', result })
    expect(job.running.value).toBe(false)
    expect(job.result.value).toBe(result)
    // Late events of a finished job change nothing.
    api.emit({ type: 'progress', jobId: 'job-1', kind: 'bench-device', phase: 'late', fraction: 1 })
    expect(job.progress.value?.phase).toBe('early')
  })

  it('keeps a refused start as the error, and a cancellation apart from errors', async () => {
    const api = new FakeApi()
    api.startJob = async () => {
      throw new ApiError('gpu-unavailable', 'no adapter')
    }
    const job = useJob(api, 'bench-device')
    await job.start({})
    expect(job.running.value).toBe(false)
    expect(job.error.value).toEqual({ code: 'gpu-unavailable', message: 'no adapter' })

    const api2 = new FakeApi()
    const job2 = useJob(api2, 'bench-device')
    await job2.start({})
    await job2.cancel()
    expect(api2.cancelled).toEqual(['job-1'])
    expect(job2.cancelling.value).toBe(true)
    api2.emit({ type: 'failed', jobId: 'job-1', kind: 'bench-device', error: { code: 'cancelled', message: 'cancelled' } })
    expect(job2.cancelled.value).toBe(true)
    expect(job2.cancelling.value).toBe(false)
    expect(job2.error.value).toBeNull()
  })

  it('stops listening when its scope ends', () => {
    const api = new FakeApi()
    const scope = effectScope()
    scope.run(() => useJob(api, 'stats'))
    expect(api.listenerCount).toBe(1)
    scope.stop()
    expect(api.listenerCount).toBe(0)
  })
})
