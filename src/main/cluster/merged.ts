// Reading what a cluster run's merge wrote into its folder: the merged envelope (with `cluster`),
// or each file's own for a workload that reads one file per run; for `--wait` and the dashboard.
// Like every file read back from a job folder, each is a regular file read up to a bound and
// checked against the job record before it is believed.
import { ApiError } from '../../shared/errors'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { isResultFileName } from '../backend/outputs'
import { readJsonRecord } from '../io/record-file'
import { badField, isMissing, isObject, jobPaths, MAX_TASKS, readJobRecord, tail, type JobRecord } from './job-folder'
import type { ClusterReport, MergeOutcome } from './merge'

/** cluster.json: every task's account, each with at most the end of its stderr. */
const REPORT_BYTES = 64 * 2 ** 20
/** A merged result set's results.json. */
const RESULTS_BYTES = 256 * 2 ** 20
/** The job's own files among its top-level .json files: never a merge's output. */
const JOB_FILES = new Set(['job.json', 'cluster.json'])

/** cluster.json as the merge writes it, or an error naming the file and the field. */
export async function readClusterReport(dir: string, record?: JobRecord): Promise<ClusterReport> {
  const path = jobPaths(dir).summary
  const v = await readJsonRecord(path, { maxBytes: REPORT_BYTES })
  if (!isObject(v)) throw badField(path, 'the record', 'an object', v)
  if (!Array.isArray(v.tasks) || v.tasks.length > MAX_TASKS) throw badField(path, 'tasks', `a list of at most ${MAX_TASKS} tasks`, Array.isArray(v.tasks) ? `${v.tasks.length} tasks` : v.tasks)
  if (record && v.tasks.length !== record.tasks.length) throw badField(path, 'tasks', `the ${record.tasks.length} tasks of job.json`, `${v.tasks.length} tasks`)
  v.tasks.forEach((t: unknown, i) => {
    if (!isObject(t)) throw badField(path, `tasks[${i}]`, 'an object', t)
    if (t.index !== i) throw badField(path, `tasks[${i}].index`, String(i), t.index)
    if (typeof t.state !== 'string') throw badField(path, `tasks[${i}].state`, 'a state', t.state)
    if (!Array.isArray(t.files) || t.files.some((f) => typeof f !== 'string')) throw badField(path, `tasks[${i}].files`, 'a list of file names', t.files)
    // The folder of a task's own result set is derived from its index, never taken as written.
    if (t.run !== undefined && t.run !== `runs/${i}`) throw badField(path, `tasks[${i}].run`, `"runs/${i}"`, t.run)
  })
  if (!Array.isArray(v.nodes) || v.nodes.some((n) => typeof n !== 'string')) throw badField(path, 'nodes', 'a list of node names', v.nodes)
  if (!Array.isArray(v.failed) || v.failed.some((n) => !Number.isInteger(n))) throw badField(path, 'failed', 'a list of task indices', v.failed)
  if (v.outputs !== undefined && (!Array.isArray(v.outputs) || v.outputs.some((n) => typeof n !== 'string' || !isResultFileName(n) || JOB_FILES.has(n))))
    throw badField(path, 'outputs', 'a list of result file names (plain .json, .csv, .svg, .png or .gif names)', v.outputs)
  return v as unknown as ClusterReport
}

/** A result set's results.json: an envelope of the job's workload (its table notes left out). */
async function readResults(path: string, record: JobRecord): Promise<ResultEnvelope> {
  const v = await readJsonRecord(path, { maxBytes: RESULTS_BYTES })
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
    const log = (await tail(paths.mergeLog, 5)).split('\n').filter((l) => !/^paralab: +\d+%/.test(l))
    throw new ApiError('io', `the merge wrote no result set in ${dir}: ${log.pop() || 'its log (merge.log) is empty; is the folder shared with the compute nodes?'}`)
  }
  const cluster = await readClusterReport(dir, record)
  delete cluster.outputs
  if (!record.separate) {
    const envelope = (await readResults(`${dir}/results.json`, record)) as ResultEnvelope & { cluster: ClusterReport }
    return { envelope: { ...envelope, cluster }, cluster }
  }
  const runs: ResultEnvelope[] = []
  for (const t of cluster.tasks) if (t.run) runs.push(await readResults(`${paths.run(t.index)}/results.json`, record))
  return { runs, cluster }
}
