// Whether a cluster run is partial and what it lacks: the files of the tasks that ended before
// their run did (cancelled, timed out, killed, a node lost) and the runs a task cancelled midway
// had not finished. A task whose run failed on its input and said why is a failed row of the
// results, as in the local run, not a missing one. The merged envelope and cluster.json carry the
// mark, so every file the merge writes says the run is partial.
import type { ResultEnvelope } from '../../shared/workloads/envelope'

export interface PartialMark {
  partial?: true
  missing?: string[]
}

/** What a task's report says of it (merge-run.ts's TaskReport). */
interface TaskEnd {
  index: number
  files: string[]
  state: string
  error?: { code: string }
}

export function partialMark(outcomes: { report: TaskEnd; envelope?: ResultEnvelope }[]): PartialMark {
  const missing: string[] = []
  for (const { report, envelope } of outcomes) {
    const what = report.files.length ? report.files.join(', ') : `task ${report.index}`
    if (!envelope && (!report.error || report.error.code === 'cancelled')) missing.push(`${what} (task ${report.index} ${report.state})`)
    // A task cancelled midway left what it had finished: its missing runs, named by its file where there are several tasks.
    else if (envelope?.partial)
      missing.push(...(envelope.missing?.length ? envelope.missing.map((m) => (outcomes.length > 1 ? `${what}: ${m}` : m)) : [`${what} (task ${report.index} ${report.state})`]))
  }
  return missing.length ? { partial: true, missing } : {}
}
