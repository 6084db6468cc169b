// A device job: the adapter in use (or why there is none) and, when measuring, the GPU's ceilings
// and the CPU's, which every timing and roofline is compared with. Without a GPU the CPU is measured alone.
import type { DeviceParams, DeviceResult } from '../../../shared/workloads/device'
import { timingOf, type Timing } from '../../../shared/workloads/envelope'
import { ApiError } from '../../../shared/errors'
import { ProgressPlan } from '../../../shared/progress-plan'
import { hostGpus } from '../../gpu/host-gpus'
import type { EngineOutcome, JobContext } from '../../engine'

export async function runDeviceJob(params: DeviceParams, ctx: JobContext): Promise<EngineOutcome<DeviceResult>> {
  // Without a GPU the adapter report says why; the CPU is still measured.
  const gpu = await ctx.gpu().catch((e: unknown) => ApiError.from(e))
  // Every GPU of the machine, whichever one this process's device is on.
  const host = hostGpus()
  const info: DeviceResult['info'] = gpu instanceof ApiError ? { available: false, reason: gpu.message, features: [], limits: {}, host } : { ...gpu.info(), host }
  if (!params.measure) return { results: { info }, timings: {} }

  const samples: Record<string, number[]> = {}
  const sample = (m: string, ms: number) => (samples[m] ??= []).push(ms)
  const results: DeviceResult = { info }
  // The measurements (and the worker threads and GPU runtime they drive) load when a measurement
  // runs. The CPU first: a software adapter's threads, still winding down after its kernels, would take
  // cores from the CPU's measurement.
  const [{ benchCpu, CPU_STEPS }, gpuPart] = await Promise.all([import('./cpu-bench'), gpu instanceof ApiError ? null : import('./bench')])
  const plan = new ProgressPlan(ctx.progress, [...CPU_STEPS, ...(gpuPart?.GPU_STEPS ?? [])])
  results.cpu = await benchCpu({ repeats: params.repeat }, { signal: ctx.signal, plan, sample })
  if (gpuPart && !(gpu instanceof ApiError)) {
    results.bench = await gpuPart.benchDevice({ readBytes: params.readMb && params.readMb * 1e6, repeats: params.repeat }, { signal: ctx.signal, plan, gpu, sample })
  }
  const timings: Record<string, Timing> = {}
  for (const [m, ms] of Object.entries(samples)) timings[m] = timingOf(ms)
  plan.finish('done')
  return { results, timings }
}
