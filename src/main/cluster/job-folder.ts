// The folder of a cluster run (`--out DIR`), on a filesystem that the compute nodes share:
//   DIR/job.json        what was submitted: the workload, its tasks' files, the job ids
//   DIR/job.sbatch      the tasks' script (readable; `sbatch job.sbatch` submits it again)
//   DIR/merge.sbatch    the merge job's script, and DIR/merge.log its log
//   DIR/tasks/<index>/  each task's envelope, error, exit record, progress events and logs
//   DIR/cluster.json    the merge's account of every task; with the result set beside it
//                       (results.json, tables, charts), or one result set per file in DIR/runs/<index>/
import { lstat } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import { CHART_SIZE_LIMITS, type ChartSize } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import { writeFileAtomic } from '../io/atomic-write'
import { readManagedJson, readManagedTail } from '../io/managed-folder'

export type Executor = 'slurm' | 'local'

export interface JobRecord {
  workload: string
  /** The command as typed, for people. */
  command: string
  /** Where the command ran: the tasks run there too, so relative paths mean the same. */
  cwd: string
  executor: Executor
  /** The input files of each task, as given. */
  tasks: { index: number; files: string[] }[]
  /** Several tasks each keep a result set of their own (the workload has no merge of files). */
  separate: boolean
  /** The job array (or single job) and the merge job, once submitted. */
  jobId?: string
  mergeJobId?: string
  /** The workload command's words and its flags: a run started again into this folder must repeat them to resume. */
  commandWords?: string[]
  flags?: string[]
  chartSize: ChartSize
  submittedAt: string
}

export const jobPaths = (dir: string) => ({
  record: join(dir, 'job.json'),
  script: join(dir, 'job.sbatch'),
  mergeScript: join(dir, 'merge.sbatch'),
  mergeLog: join(dir, 'merge.log'),
  summary: join(dir, 'cluster.json'),
  tasks: join(dir, 'tasks'),
  task: (index: number) => join(dir, 'tasks', String(index)),
  run: (index: number) => join(dir, 'runs', String(index)),
})

export const taskPaths = (taskDir: string) => ({
  envelope: join(taskDir, 'envelope.json'),
  error: join(taskDir, 'error.json'),
  /** The task's own exit record; a task the scheduler killed has none. */
  exit: join(taskDir, 'exit.json'),
  progress: join(taskDir, 'progress.ndjson'),
  stdout: join(taskDir, 'stdout.log'),
  stderr: join(taskDir, 'stderr.log'),
  /** What `--executor local` saw of the task's process (Slurm keeps this itself). */
  state: join(taskDir, 'state.json'),
  rankLog: (rank: number) => join(taskDir, `rank-${rank}.log`),
})

export async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n', { overwrite: true })
}

/**
 * The most tasks a job may have: a job array of one task per file, and what one merge reads back.
 * Slurm's own default limit is lower (MaxArraySize 1001).
 */
export const MAX_TASKS = 10_000
/** job.json: the tasks' file names, at most MAX_TASKS of them. */
const RECORD_BYTES = 32 * 2 ** 20
/** The last bytes of a log or event file read back: enough for its last lines, whatever its size. */
export const TAIL_BYTES = 64 * 1024

/** Refuses a job of more tasks than a merge reads back. */
export function checkTaskCount(tasks: number): void {
  if (tasks > MAX_TASKS) throw new ApiError('invalid-argument', `a cluster run has at most ${MAX_TASKS} tasks (one per file), and this one would have ${tasks}: give fewer files, or split them over several runs`)
}

/** A field of a record read back that is not what Paralab writes there. */
export function badField(path: string, field: string, want: string, got: unknown): ApiError {
  let shown: string
  try {
    shown = JSON.stringify(got) ?? String(got)
  } catch {
    shown = String(got)
  }
  return new ApiError('io', `${path}: ${field} must be ${want}, got ${shown.length > 80 ? `${shown.slice(0, 80)}…` : shown}`)
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isText = (v: unknown, max = 4096): v is string => typeof v === 'string' && v.length > 0 && v.length <= max && !v.includes('\0')
const isTexts = (v: unknown, max = 4096): v is string[] => Array.isArray(v) && v.every((w) => isText(w, max))
const isJobId = (v: unknown) => v === undefined || (typeof v === 'string' && /^\d{1,12}$/.test(v))

/**
 * job.json as Paralab writes it, or an error naming the file and the field: its tasks numbered
 * 0, 1, … in order (their folders are derived from those numbers only), at most MAX_TASKS.
 */
export function checkJobRecord(value: unknown, path: string): JobRecord {
  if (!isObject(value)) throw badField(path, 'the record', 'an object', value)
  const r = value
  if (!isText(r.workload, 64)) throw badField(path, 'workload', 'a workload name', r.workload)
  if (typeof r.command !== 'string') throw badField(path, 'command', 'a text', r.command)
  if (!isText(r.cwd) || !isAbsolute(r.cwd)) throw badField(path, 'cwd', 'an absolute folder', r.cwd)
  if (r.executor !== 'slurm' && r.executor !== 'local') throw badField(path, 'executor', '"slurm" or "local"', r.executor)
  if (!Array.isArray(r.tasks) || r.tasks.length === 0) throw badField(path, 'tasks', 'a non-empty list', r.tasks)
  if (r.tasks.length > MAX_TASKS) throw new ApiError('io', `${path}: tasks lists ${r.tasks.length} tasks, more than the ${MAX_TASKS} a job may have`)
  r.tasks.forEach((t: unknown, i) => {
    if (!isObject(t)) throw badField(path, `tasks[${i}]`, 'an object', t)
    if (t.index !== i) throw badField(path, `tasks[${i}].index`, `${i} (tasks are numbered in order)`, t.index)
    if (!isTexts(t.files)) throw badField(path, `tasks[${i}].files`, 'a list of file names', t.files)
  })
  if (typeof r.separate !== 'boolean') throw badField(path, 'separate', 'true or false', r.separate)
  if (!isJobId(r.jobId)) throw badField(path, 'jobId', 'a Slurm job id', r.jobId)
  if (!isJobId(r.mergeJobId)) throw badField(path, 'mergeJobId', 'a Slurm job id', r.mergeJobId)
  if (r.chartSize !== undefined && !isObject(r.chartSize)) throw badField(path, 'chartSize', 'an object', r.chartSize)
  for (const [key, [min, max]] of [['width', CHART_SIZE_LIMITS.side], ['height', CHART_SIZE_LIMITS.side], ['scale', CHART_SIZE_LIMITS.scale]] as const) {
    const v = (r.chartSize as Record<string, unknown> | undefined)?.[key]
    if (v !== undefined && (typeof v !== 'number' || !(v >= min && v <= max))) throw badField(path, `chartSize.${key}`, `a number in ${min}…${max}`, v)
  }
  if (r.commandWords !== undefined && !isTexts(r.commandWords, 64)) throw badField(path, 'commandWords', 'a list of words', r.commandWords)
  if (r.flags !== undefined && !isTexts(r.flags)) throw badField(path, 'flags', 'a list of words', r.flags)
  return value as unknown as JobRecord
}

export async function readJobRecord(dir: string): Promise<JobRecord> {
  const path = jobPaths(dir).record
  let value: unknown
  try {
    value = await readManagedJson(dir, ['job.json'], { maxBytes: RECORD_BYTES })
  } catch (e) {
    const err = ApiError.from(e)
    throw new ApiError('io', `${dir} is not the folder of a Paralab cluster run: ${err.message}`)
  }
  return checkJobRecord(value, path)
}

/**
 * The last `lines` non-blank lines of the log at `parts` of the job folder `dir` ('' when it is
 * absent); from its last TAIL_BYTES only, never waiting on a FIFO nor through a link.
 */
export async function tail(dir: string, parts: string[], lines = 20): Promise<string> {
  const path = join(dir, ...parts)
  let text: string
  try {
    text = (await readManagedTail(dir, parts, { maxBytes: TAIL_BYTES })).toString('utf8')
  } catch (e) {
    return (await isMissing(path)) ? '' : `(${ApiError.from(e).message})`
  }
  return text.split('\n').filter((l) => l.trim() !== '').slice(-lines).join('\n')
}

/** Whether nothing is at `path` (a file a task never wrote). */
export async function isMissing(path: string): Promise<boolean> {
  return lstat(path).then(
    () => false,
    (e: NodeJS.ErrnoException) => e.code === 'ENOENT',
  )
}
