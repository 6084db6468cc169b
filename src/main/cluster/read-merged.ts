// Reading what a cluster run's merge wrote into its folder: the merged envelope (with `cluster`),
// or each file's own for a workload that reads one file per run; for `--wait` and the dashboard.
// Like every file read back from a job folder, each is a regular file read up to a bound and
// checked against the job record before it is believed.
import { ApiError } from '../../shared/errors'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { join } from 'node:path'
import { readManagedJson } from '../io/managed-folder'
import { badField, isMissing, isObject, jobPaths, readJobRecord, tail, type JobRecord } from './job-folder'
import { readClusterReport, type ClusterReport } from './cluster-report'
import type { MergeOutcome } from './merge-run'

/** A merged result set's results.json. */
const RESULTS_BYTES = 256 * 2 ** 20

/** A result set's results.json: an envelope of the job's workload (its table notes left out). */
async function readResults(dir: string, parts: string[], record: JobRecord): Promise<ResultEnvelope> {
  const path = join(dir, ...parts)
  // Never through a link at runs/ or runs/<index>, nor a file of another user.
  const v = await readManagedJson(dir, parts, { maxBytes: RESULTS_BYTES })
  if (!isObject(v)) throw badField(path, 'the envelope', 'an object', v)
  if (v.workload !== record.workload) throw badField(path, 'workload', `"${record.workload}", the job's workload`, v.workload)
  if (!isObject(v.results)) throw badField(path, 'results', 'an object', v.results)
  if (!isObject(v.input) || !Array.isArray(v.input.files)) throw badField(path, 'input.files', 'a list of files', v.input)
  delete v.tableNotes
  return v as unknown as ResultEnvelope
}

/** What the merge wrote into DIR, or an error naming why it wrote nothing (from its log). */
export async function readMerged(dir: string): Promise<MergeOutcome> {
  const paths = jobPaths(dir)
  const record = await readJobRecord(dir)
  if (await isMissing(paths.summary)) {
    const log = (await tail(dir, ['merge.log'], 5)).split('\n').filter((l) => !/^paralab: +\d+%/.test(l))
    throw new ApiError('io', `the merge wrote no result set in ${dir}: ${log.pop() || 'its log (merge.log) is empty; is the folder shared with the compute nodes?'}`)
  }
  const cluster = await readClusterReport(dir, record)
  delete cluster.outputs
  if (!record.separate) {
    const envelope = (await readResults(dir, ['results.json'], record)) as ResultEnvelope & { cluster: ClusterReport }
    return { envelope: { ...envelope, cluster }, cluster }
  }
  const runs: ResultEnvelope[] = []
  for (const t of cluster.tasks) if (t.run) runs.push(await readResults(dir, ['runs', String(t.index), 'results.json'], record))
  return { runs, cluster }
}
