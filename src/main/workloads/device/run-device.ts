// A device job: the adapter in use (or why there is none) and, when measuring, the GPU's ceilings
// and the CPU's, which every timing and roofline is compared with. Without a GPU the CPU is measured alone.
import type { DeviceParams, DeviceResult } from '../../../shared/workloads/device'
import { timingOf, type Timing } from '../../../shared/workloads/envelope'
import { ApiError } from '../../../shared/errors'
import type { JobProgress } from '../../../shared/jobs'
import { hostGpus } from '../../gpu/host-gpus'
import type { EngineOutcome, JobContext } from '../../engine'

/** Share of a measuring job's progress the GPU's measurements take, when there is a GPU. */
const GPU_SHARE = 0.75

export async function runDeviceJob(params: DeviceParams, ctx: JobContext): Promise<EngineOutcome<DeviceResult>> {
  // Without a GPU the adapter report says why; the CPU is still measured.
  const gpu = await ctx.gpu().catch((e: unknown) => ApiError.from(e))
  // Every GPU of the machine, whichever one this process's device is on.
  const host = hostGpus()
  const info: DeviceResult['info'] = gpu instanceof ApiError ? { available: false, reason: gpu.message, features: [], limits: {}, host } : { ...gpu.info(), host }
  if (!params.measure) return { results: { info }, timings: {} }

  const samples: Record<string, number[]> = {}
  const sample = (m: string, ms: number) => (samples[m] ??= []).push(ms)
  // Each part reports its own fractions; the job's bar spans both.
  const within = (from: number, to: number) => (p: JobProgress) => ctx.progress({ ...p, fraction: from + (to - from) * p.fraction })
  const gpuShare = gpu instanceof ApiError ? 0 : GPU_SHARE
  const results: DeviceResult = { info }
  // The measurements (and the GPU runtime and worker threads they drive) load when a measurement runs.
  if (!(gpu instanceof ApiError)) {
    const { benchDevice } = await import('./bench')
    results.bench = await benchDevice(
      { readBytes: params.readMb && params.readMb * 1e6, repeats: params.repeat },
      { signal: ctx.signal, progress: within(0, gpuShare), gpu, sample },
    )
  }
  const { benchCpu } = await import('./cpu-bench')
  results.cpu = await benchCpu({ repeats: params.repeat }, { signal: ctx.signal, progress: within(gpuShare, 1), sample })
  const timings: Record<string, Timing> = {}
  for (const [m, ms] of Object.entries(samples)) timings[m] = timingOf(ms)
  return { results, timings }
}
