// The folder of a cluster run (`--out DIR`), on a filesystem that the compute nodes share:
//   DIR/job.json        what was submitted: the workload, its tasks' files, the job ids
//   DIR/job.sbatch      the tasks' script (readable; `sbatch job.sbatch` submits it again)
//   DIR/merge.sbatch    the merge job's script, and DIR/merge.log its log
//   DIR/tasks/<index>/  each task's envelope, error, exit record, progress events and logs
//   DIR/cluster.json    the merge's account of every task; with the result set beside it
//                       (results.json, tables, charts), or one result set per file in DIR/runs/<index>/
import { constants } from 'node:fs'
import { access, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import type { ChartSize } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import { writeFileAtomic } from '../io/atomic-write'

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

/**
 * Makes DIR ready for a new job: created if absent; an earlier job's folder only with `force`
 * (then emptied); anything else refused, as is a folder that cannot be written.
 */
export async function prepareJobFolder(dir: string, force: boolean): Promise<string> {
  const target = resolve(dir)
  const existing = await stat(target).catch(() => null)
  if (existing) {
    if (!existing.isDirectory()) throw new ApiError('io', `--out ${dir} is a file, not a folder`)
    const entries = await readdir(target)
    const earlierJob = entries.includes('job.json')
    if (entries.length && !earlierJob) throw new ApiError('io', `--out ${dir} exists and is not the folder of a Paralab cluster run; choose another --out`)
    if (earlierJob && !force) throw new ApiError('io', `--out ${dir} holds an earlier cluster run (use --force to replace it)`)
    for (const e of entries) await rm(join(target, e), { recursive: true, force: true })
  } else {
    const parent = await stat(dirname(target)).catch(() => null)
    if (!parent?.isDirectory()) throw new ApiError('io', `cannot write --out ${dir}: its folder ${dirname(target)} does not exist`)
  }
  await access(existing ? target : dirname(target), constants.W_OK).catch(() => {
    throw new ApiError('io', `cannot write --out ${dir}: ${existing ? 'the folder' : `its folder ${dirname(target)}`} is not writable`)
  })
  await mkdir(join(target, 'tasks'), { recursive: true })
  return target
}

export async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n', { overwrite: true })
}

/** A JSON file, or undefined when it is absent or unreadable (a task that never ran, or was killed writing it). */
export async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T
  } catch {
    return undefined
  }
}

export async function readJobRecord(dir: string): Promise<JobRecord> {
  const record = await readJson<JobRecord>(jobPaths(dir).record)
  if (!record) throw new ApiError('io', `${dir} is not the folder of a Paralab cluster run (no readable job.json)`)
  return record
}

/** The last `lines` lines of a text file ('' when it is absent). */
export async function tail(path: string, lines = 20): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => '')
  return text.split('\n').filter((l) => l.trim() !== '').slice(-lines).join('\n')
}
