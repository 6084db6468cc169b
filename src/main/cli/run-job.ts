// Runs one backend job from the command line: progress bar on stderr, Ctrl-C cancels.
import type { JobKind, JobParams, JobResults } from '../../shared/jobs'
import { Backend } from '../backend/backend'
import { progressBar } from './progress'

export async function runJob<K extends JobKind>(kind: K, params: JobParams[K], backend = new Backend()): Promise<JobResults[K]> {
  const bar = progressBar()
  const id = backend.startJob(kind, params)
  const onEvent = (e: Parameters<typeof bar.update>[0] & { jobId: string; type: string }) => {
    if (e.jobId === id && e.type === 'progress') bar.update(e)
  }
  backend.jobs.on('event', onEvent as never)
  const onSigint = () => backend.cancelJob(id)
  process.once('SIGINT', onSigint)
  try {
    return await backend.jobs.result<K>(id)
  } finally {
    process.off('SIGINT', onSigint)
    backend.jobs.off('event', onEvent as never)
    bar.done()
  }
}
