// The merge's account of a job (DIR/cluster.json, and `cluster` in the merged results.json): every
// task's state, exit code and node, with the result files the merge placed beside it; and reading
// it back, checked field by field, since the job folder is shared.
import type { ApiErrorShape } from '../../shared/errors'
import { isResultFileName } from '../results/outputs'
import { readManagedJson } from '../io/managed-folder'
import { badField, isObject, jobPaths, MAX_TASKS, type JobRecord } from './job-folder'

export interface TaskReport {
  index: number
  files: string[]
  /** COMPLETED, FAILED, TIMEOUT, OUT_OF_MEMORY, CANCELLED, NODE_FAIL, …; UNKNOWN when nothing says. */
  state: string
  exit_code: number | null
  /** The signal that ended it, if one did. */
  signal?: number
  node?: string
  /** The run's own error, when it reported one. */
  error?: ApiErrorShape
  /** The end of its stderr, for a task that did not complete. */
  stderr_tail?: string
  /** Its own result set (a workload that reads one file per run). */
  run?: string
}

export interface ClusterReport {
  executor: JobRecord['executor']
  job_id: string | null
  merge_job_id: string | null
  nodes: string[]
  tasks: TaskReport[]
  /** Indices of the tasks that did not complete. */
  failed: number[]
  /** Some task did not complete or was cancelled midway: what is missing, as in the merged envelope. */
  partial?: true
  missing?: string[]
  /** In cluster.json only: the result files the merge placed beside it (what a merge again or --force may replace). */
  outputs?: string[]
}

/** cluster.json: every task's account, each with at most the end of its stderr. */
const REPORT_BYTES = 64 * 2 ** 20
/** The job's own files among its top-level .json files: never a merge's output. */
const JOB_FILES = new Set(['job.json', 'cluster.json'])

/** cluster.json as the merge writes it, or an error naming the file and the field. */
export async function readClusterReport(dir: string, record?: JobRecord): Promise<ClusterReport> {
  const path = jobPaths(dir).summary
  const v = await readManagedJson(dir, ['cluster.json'], { maxBytes: REPORT_BYTES })
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

