// The device workload's engine: the adapter in use and, when asked, its measured ceilings.
import { deviceWorkload, type DeviceResult } from '../../../shared/workloads/device'
import { timingOf, type Timing } from '../../../shared/workloads/envelope'
import { ApiError } from '../../../shared/errors'
import { hostGpus } from '../../gpu/host-gpus'
import type { WorkloadEngine } from '../../engine'
import { describeBench, describeDevice } from './describe'
import { benchReadCommand } from './read-sweep'

export const deviceEngine: WorkloadEngine<'device'> = {
  definition: deviceWorkload,
  lane: 'gpu',
  async run(params, ctx) {
    const gpu = await ctx.gpu().catch((e: unknown) => {
      // Without a GPU the adapter report says why; a measurement cannot run.
      if (params.measure) throw e
      return ApiError.from(e)
    })
    // Every GPU of the machine, whichever one this process's device is on.
    const host = hostGpus()
    if (gpu instanceof ApiError) return { results: { info: { available: false, reason: gpu.message, features: [], limits: {}, host } }, timings: {} }
    if (!params.measure) return { results: { info: { ...gpu.info(), host } }, timings: {} }
    const samples: Record<string, number[]> = {}
    // The measurements (and the GPU runtime they drive) load when a measurement runs.
    const { benchDevice } = await import('./bench')
    const bench = await benchDevice(
      { readBytes: params.readMb && params.readMb * 1e6, repeats: params.repeat },
      { signal: ctx.signal, progress: ctx.progress, gpu, sample: (m, ms) => (samples[m] ??= []).push(ms) },
    )
    const timings: Record<string, Timing> = {}
    for (const [m, ms] of Object.entries(samples)) timings[m] = timingOf(ms)
    const results: DeviceResult = { info: { ...gpu.info(), host }, bench }
    return { results, timings }
  },
  cli: {
    describe: (r) => describeDevice(r.info) + (r.bench ? '\n' + describeBench(r.bench) : ''),
    presets: [{ name: 'bench device', summary: 'Measure the GPU: memory read bandwidth, f32 FMA throughput, upload and readback bandwidth.', params: { measure: true } }],
    commands: [benchReadCommand],
  },
}
