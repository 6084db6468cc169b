// Points for the Device view's roofs: the newest run in the history, of any workload, with a backend
// to place under a measured roof. Its GPU points go under the GPU's roof when they ran on the adapter
// that roof was measured on, its CPU backends' under the CPU's roof when they ran on that CPU (points
// of other hardware under these roofs would mislead). Each workload's newest run is opened, no more.
import type { ParalabApi, RunSummary } from '../../../shared/api'
import type { RooflineKernel } from '../../../shared/charts/spec'
import { isWorkloadId } from '../../../shared/workloads'
import { backendPoints } from '../../../shared/workloads/backend-points'

export interface RunPoints {
  run: RunSummary
  /** Named after their workload, e.g. "landslide gpu/fused (f32)", "correlation simd". */
  gpu: RooflineKernel[]
  cpu: RooflineKernel[]
  /** The GPU's points are its kernels as measured per kernel, not its whole runs. */
  gpuKernels: boolean
}

/** The roofs measured: the adapter and the CPU they stand for (absent: not measured). */
export interface MeasuredRoofs {
  adapter?: string
  cpu?: string
}

export async function newestRunPoints(api: Pick<ParalabApi, 'listRuns' | 'openRun'>, roofs: MeasuredRoofs): Promise<RunPoints | null> {
  const newest = new Map<string, RunSummary>()
  for (const run of await api.listRuns()) {
    const seen = newest.get(run.workload)
    if (run.workload !== 'device' && isWorkloadId(run.workload) && (!seen || run.createdAt > seen.createdAt)) newest.set(run.workload, run)
  }
  const candidates = [...newest.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  for (const run of candidates) {
    const envelope = await api.openRun(run.id)
    const points = backendPoints(envelope)
    const onGpu = roofs.adapter !== undefined && envelope.device?.adapter === roofs.adapter
    const onCpu = roofs.cpu !== undefined && envelope.host?.cpu === roofs.cpu
    const gpu = onGpu ? points.gpu : []
    const cpu = onCpu ? points.cpu : []
    if (gpu.length || cpu.length) return { run, gpu, cpu, gpuKernels: onGpu && points.gpuKernels }
  }
  return null
}
