// Runs one workload job from the command line: progress bar on stderr, Ctrl-C or SIGTERM cancels.
import type { JobEvent, JobProgress } from '../../shared/jobs'
import type { WorkloadId } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { Backend } from '../backend/backend'
import type { RankPlacement } from '../ranks/placement'
import { ENGINES } from '../workloads'
import { progressBar, type ProgressStyle } from '../terminal/progress'
import { onInterrupt } from '../terminal/interrupt'

/**
 * `prepare` may complete the parameters with the backend's help (e.g. the example's files);
 * `onProgress` also gets every progress event (a cluster task writes them into its folder);
 * `ranks`: the job's place among the ranks of a cluster task (default: as the environment says).
 */
export async function runJob(
  workload: WorkloadId,
  params: Record<string, unknown>,
  prepare: (backend: Backend) => Promise<Record<string, unknown>> = async () => params,
  progress: ProgressStyle = 'auto',
  onProgress?: (p: JobProgress) => void,
  ranks?: RankPlacement | null,
): Promise<ResultEnvelope> {
  const backend = new Backend({ engines: ENGINES, ranks })
  const bar = progressBar(process.stderr, progress)
  const id = backend.startJob(workload, (await prepare(backend)) as never)
  const onEvent = (e: JobEvent) => {
    if (e.jobId !== id || e.type !== 'progress') return
    bar.update(e)
    onProgress?.(e)
  }
  backend.jobs.on('event', onEvent)
  const stopListening = onInterrupt(() => backend.cancelJob(id))
  let finished = false
  try {
    const envelope = await backend.jobs.result(id)
    finished = !envelope.partial
    return envelope
  } finally {
    stopListening()
    backend.jobs.off('event', onEvent)
    bar.done(finished)
  }
}
