// Runs one backend job from the command line: progress bar on stderr, Ctrl-C cancels.
import type { JobEvent, JobKind, JobParams, JobResults } from '../../shared/jobs'
import { Backend } from '../backend/backend'
import { progressBar } from './progress'

export async function runJob<K extends JobKind>(kind: K, params: JobParams[K], backend = new Backend()): Promise<JobResults[K]> {
  const bar = progressBar()
  const id = backend.startJob(kind, params)
  const onEvent = (e: JobEvent) => {
    if (e.jobId === id && e.type === 'progress') bar.update(e)
  }
  backend.jobs.on('event', onEvent)
  const onSigint = () => backend.cancelJob(id)
  process.once('SIGINT', onSigint)
  try {
    return await backend.jobs.result<K>(id)
  } finally {
    process.off('SIGINT', onSigint)
    backend.jobs.off('event', onEvent)
    bar.done()
  }
}
