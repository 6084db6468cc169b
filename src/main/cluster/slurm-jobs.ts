// Slurm's side of a cluster run: submitting the scripts (sbatch), the states of a job's tasks
// (`scontrol show job -o`), the jobs of this user (`squeue --json`; there may be no accounting
// database, so never sacct) and cancelling (scancel).
import { userInfo } from 'node:os'
import { ApiError } from '../../shared/errors'
import { slurm } from './slurm-command'

/**
 * Submits a script's text on sbatch's stdin (sbatch keeps what it reads at submission): what runs is
 * the text Paralab generated, never a file someone could swap before sbatch reads it. Returns the
 * job id sbatch printed. `after`: a job it waits for, however that ends.
 */
export async function sbatch(script: string, after?: string): Promise<string> {
  const { stdout } = await slurm('sbatch', ['--parsable', ...(after ? [`--dependency=afterany:${after}`] : [])], undefined, script)
  const id = stdout.trim().split(';')[0]
  if (!/^\d+$/.test(id)) throw new ApiError('io', `sbatch printed no job id: ${stdout.trim()}`)
  return id
}

export async function scancel(id: string): Promise<void> {
  await slurm('scancel', [id])
}

/** What the scheduler says of one task (one array task, or the job itself). */
export interface SchedulerTask {
  /** Array index, 0 for a job that is no array. */
  index: number
  jobId: string
  state: string
  exitCode: number
  signal: number
  nodes: string
  elapsedSeconds: number
  reason: string
}

/** `scontrol show job -o` lines as key → value (values may hold spaces only in the last field, Power). */
function scontrolFields(line: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const m of line.matchAll(/(\S+?)=(\S*)/g)) fields[m[1]] = m[2]
  return fields
}

/** `[d-]hh:mm:ss` as seconds. */
function seconds(text: string | undefined): number {
  const m = /^(?:(\d+)-)?(\d+):(\d+):(\d+)$/.exec(text ?? '')
  return m ? Number(m[1] ?? 0) * 86400 + Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4]) : 0
}

/** The tasks of a job (every array task), or undefined when Slurm no longer knows the job. */
export async function jobTasks(jobId: string): Promise<SchedulerTask[] | undefined> {
  let stdout: string
  try {
    ;({ stdout } = await slurm('scontrol', ['show', 'job', '-o', jobId]))
  } catch (e) {
    if (/Invalid job id/i.test((e as Error).message)) return undefined
    throw e
  }
  const tasks: SchedulerTask[] = []
  for (const line of stdout.split('\n').filter((l) => l.startsWith('JobId='))) {
    const f = scontrolFields(line)
    const [code, signal] = (f.ExitCode ?? '0:0').split(':').map(Number)
    const indexText = f.ArrayTaskId
    // A pending part of an array is one line for its remaining indices, e.g. 2-5%2.
    const indices = indexText === undefined ? [0] : expandIndices(indexText)
    for (const index of indices)
      tasks.push({ index, jobId: f.JobId, state: f.JobState ?? 'UNKNOWN', exitCode: code, signal, nodes: f.NodeList === '(null)' ? '' : f.NodeList ?? '', elapsedSeconds: seconds(f.RunTime), reason: f.Reason ?? '' })
  }
  return tasks.sort((a, b) => a.index - b.index)
}

/** `0-3,7%2` as [0, 1, 2, 3, 7]. */
export function expandIndices(text: string): number[] {
  const out: number[] = []
  for (const part of text.split('%')[0].split(',')) {
    const [a, b] = part.split('-').map(Number)
    if (Number.isInteger(a)) for (let i = a; i <= (Number.isInteger(b) ? b : a); i++) out.push(i)
  }
  return out
}

/** One record of `squeue --json`: a job, an array task, or the pending rest of an array. */
export interface QueueRecord {
  job_id: number
  array_job_id: number
  array_task_id: number | null
  array_task_string: string
  name: string
  comment: string
  job_state: string
  /** The raw wait status. */
  exit_code: number
  nodes: string
  start_time: number
  end_time: number
  submit_time: number
  state_reason: string
}

/** This user's jobs that Paralab submitted (named paralab-…), finished ones included while Slurm keeps them. */
export async function paralabQueue(): Promise<QueueRecord[]> {
  const { stdout } = await slurm('squeue', ['--json', '--states=all', `--user=${userInfo().username}`])
  let answer: { jobs?: QueueRecord[]; errors?: { description?: string; error?: string; source?: string }[] }
  try {
    answer = JSON.parse(stdout)
  } catch {
    throw new ApiError('io', `squeue --json printed no JSON: ${stdout.trim().slice(0, 200)}`)
  }
  // squeue exits 0 when it cannot reach slurmctld; it says so in errors[], and an empty list would be a lie.
  const errors = answer.errors ?? []
  if (errors.length)
    throw new ApiError('io', `squeue could not list the jobs: ${errors.map((e) => [e.description, e.error, e.source && `(${e.source})`].filter(Boolean).join(': ')).join('; ')} (is slurmctld running?)`)
  return (answer.jobs ?? []).filter((j) => j.name.startsWith('paralab-') && j.comment.startsWith('paralab:'))
}

/** The record of `id` (a job, or `JOB_INDEX` for one task of an array) among Paralab's jobs, or undefined. */
export function findParalabJob(records: QueueRecord[], id: string): QueueRecord | undefined {
  const [job, task] = id.split('_')
  return records.find((r) => {
    if (task === undefined) return String(r.job_id) === job || (r.array_job_id !== 0 && String(r.array_job_id) === job)
    if (String(r.array_job_id) !== job) return false
    // A pending rest of an array is one record for its remaining indices.
    return r.array_task_string ? expandIndices(r.array_task_string).includes(Number(task)) : String(r.array_task_id) === task
  })
}
