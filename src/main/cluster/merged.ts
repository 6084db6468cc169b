// Reading what a cluster run's merge wrote into its folder: the merged envelope (with `cluster`),
// or each file's own for a workload that reads one file per run; for `--wait` and the dashboard.
import { ApiError } from '../../shared/errors'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { jobPaths, readJson, tail } from './job-folder'
import type { ClusterReport, MergeOutcome } from './merge'

/** What the merge wrote into DIR, or an error naming why it wrote nothing (from its log). */
export async function readMerged(dir: string): Promise<MergeOutcome> {
  const paths = jobPaths(dir)
  const cluster = await readJson<ClusterReport>(paths.summary)
  if (!cluster) {
    const log = (await tail(paths.mergeLog, 5)).split('\n').filter((l) => !/^paralab: +\d+%/.test(l))
    throw new ApiError('io', `the merge wrote no result set in ${dir}: ${log.pop() || 'its log (merge.log) is empty; is the folder shared with the compute nodes?'}`)
  }
  const envelope = await readJson<ResultEnvelope & { cluster: ClusterReport; tableNotes?: unknown }>(`${dir}/results.json`)
  if (envelope) {
    delete envelope.tableNotes
    return { envelope, cluster }
  }
  const runs: ResultEnvelope[] = []
  for (const t of cluster.tasks) {
    const run = t.run && (await readJson<ResultEnvelope & { tableNotes?: unknown }>(`${dir}/${t.run}/results.json`))
    if (run) {
      delete run.tableNotes
      runs.push(run)
    }
  }
  return { runs, cluster }
}
