import { effectScope } from 'vue'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import type { DeviceBenchResult, DeviceInfo } from '../../src/shared/device'
import type { DeviceResult } from '../../src/shared/workloads/device'
import { useJob } from '../../src/renderer/composables/useJob'
import { envelopeOf } from './envelope'
import { FakeApi } from './fake-api'

const info: DeviceInfo = { available: true, features: [], limits: {} }
const envelope = envelopeOf<DeviceResult, unknown>('device', { measure: true }, { info, bench: { read_bandwidth_GB_per_s: 1 } as DeviceBenchResult })

describe('useJob', () => {
  it('applies events that arrive before startJob names the job, ignores other jobs and workloads', async () => {
    const api = new FakeApi()
    // This backend reports progress before it answers startJob.
    api.startJob = async (workload) => {
      api.emit({ type: 'progress', jobId: 'job-1', workload, phase: 'early', fraction: 0.1 })
      api.emit({ type: 'progress', jobId: 'job-0', workload, phase: 'someone else', fraction: 0.9 })
      return 'job-1'
    }
    const job = useJob(api, 'device')
    await job.start({ measure: true })
    expect(job.jobId.value).toBe('job-1')
    expect(job.progress.value).toEqual({ phase: 'early', fraction: 0.1, throughput: undefined })
    // Job ids are only unique per backend: the workload must match as well.
    api.emit({ type: 'progress', jobId: 'job-1', workload: 'stats', phase: 'wrong workload', fraction: 0.5 })
    expect(job.progress.value?.phase).toBe('early')
    api.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope })
    expect(job.running.value).toBe(false)
    expect(job.envelope.value).toBe(envelope)
    // `result` is the envelope's results, for views that only read those.
    expect(job.result.value).toBe(envelope.results)
    // Late events of a finished job change nothing.
    api.emit({ type: 'progress', jobId: 'job-1', workload: 'device', phase: 'late', fraction: 1 })
    expect(job.progress.value?.phase).toBe('early')
  })

  it('passes the workload and parameters to startJob and clears the last envelope on a new start', async () => {
    const api = new FakeApi()
    const job = useJob(api, 'device')
    await job.start({ measure: true, repeat: 2 })
    expect(api.started).toEqual([{ workload: 'device', params: { measure: true, repeat: 2 }, jobId: 'job-1' }])
    api.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope })
    expect(job.result.value).not.toBeNull()
    await job.start({ measure: true })
    expect(job.envelope.value).toBeNull()
    expect(job.result.value).toBeNull()
    expect(job.running.value).toBe(true)
  })

  it('keeps a refused start as the error, and a cancellation apart from errors', async () => {
    const api = new FakeApi()
    api.startJob = async () => {
      throw new ApiError('gpu-unavailable', 'no adapter')
    }
    const job = useJob(api, 'device')
    await job.start({ measure: true })
    expect(job.running.value).toBe(false)
    expect(job.error.value).toEqual({ code: 'gpu-unavailable', message: 'no adapter' })

    const api2 = new FakeApi()
    const job2 = useJob(api2, 'device')
    await job2.start({ measure: true })
    await job2.cancel()
    expect(api2.cancelled).toEqual(['job-1'])
    expect(job2.cancelling.value).toBe(true)
    api2.emit({ type: 'failed', jobId: 'job-1', workload: 'device', error: { code: 'cancelled', message: 'cancelled' } })
    expect(job2.cancelled.value).toBe(true)
    expect(job2.cancelling.value).toBe(false)
    expect(job2.error.value).toBeNull()
    expect(job2.envelope.value).toBeNull()
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
