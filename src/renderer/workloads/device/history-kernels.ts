// Kernel points for the Device view's roof: the newest run in the history, of any workload, whose
// charts place kernels on a roofline, timed on the adapter the roof was measured on (points from
// another GPU under this roof would mislead). Each workload's newest run is opened, no more.
import type { ParalabApi, RunSummary } from '../../../shared/api'
import type { RooflineKernel } from '../../../shared/charts/spec'
import { isWorkloadId, workload } from '../../../shared/workloads'

export interface HistoryKernels {
  run: RunSummary
  /** Named after their workload, e.g. "landslide gpu/fused (f32)". */
  kernels: RooflineKernel[]
}

export async function latestKernelPoints(api: Pick<ParalabApi, 'listRuns' | 'openRun'>, adapter: string): Promise<HistoryKernels | null> {
  const newest = new Map<string, RunSummary>()
  for (const run of await api.listRuns()) {
    const seen = newest.get(run.workload)
    if (run.workload !== 'device' && isWorkloadId(run.workload) && (!seen || run.createdAt > seen.createdAt)) newest.set(run.workload, run)
  }
  const candidates = [...newest.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  for (const run of candidates) {
    const envelope = await api.openRun(run.id)
    if (envelope.device?.adapter !== adapter || !isWorkloadId(envelope.workload)) continue
    const kernels = workload(envelope.workload)
      .charts(envelope.results as never, envelope as never)
      .flatMap((c) => (c.spec.kind === 'roofline' ? (c.spec.data.kernels ?? []) : []))
      .map((k) => ({ ...k, name: `${run.workload} ${k.name}` }))
    if (kernels.length) return { run, kernels }
  }
  return null
}
