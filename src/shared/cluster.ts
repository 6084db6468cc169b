// What a cluster run asks of Slurm, checked in one place for the CLI's flags (`--partition`,
// `--time`, `--nodes`, …), the dashboard's "Run on the cluster" fields and the backend's requests:
// each bad value is refused with its flag named, before anything is written or submitted.
import { ApiError } from './errors'

/** The Slurm fields a run may set, by name: its CLI flag, its label in the dashboard, and for counts their largest value. */
export const CLUSTER_FIELDS = {
  partition: { flag: 'partition', label: 'Partition', help: 'the partition (queue); empty: the cluster\'s default' },
  time: { flag: 'time', label: 'Time limit', help: 'minutes, h:m:s, d-h, …; empty: the partition\'s default' },
  nodes: { flag: 'nodes', label: 'Nodes', max: 100_000, help: 'nodes of each task' },
  ntasks: { flag: 'ntasks', label: 'Ranks', max: 1_000_000, help: 'ranks of each task: more than one starts the task under srun' },
  cpusPerTask: { flag: 'cpus-per-task', label: 'CPUs per rank', max: 10_000, help: 'CPUs of each rank' },
  gpusPerTask: { flag: 'gpus-per-task', label: 'GPUs per rank', max: 64, help: 'GPUs of each rank' },
  arrayParallelism: { flag: 'array-parallelism', label: 'Tasks at once', max: 1_000_000, help: 'at most this many tasks of a job array run at once (%K)' },
} as const

export type ClusterField = keyof typeof CLUSTER_FIELDS

/** The Slurm fields of a run, checked. */
export interface ClusterRequest {
  partition?: string
  /** As Slurm writes it: minutes, m:s, h:m:s, d-h, d-h:m, d-h:m:s, or UNLIMITED. */
  time?: string
  nodes?: number
  /** Ranks of each task: more than one starts the task's command under `srun`. */
  ntasks?: number
  cpusPerTask?: number
  gpusPerTask?: number
  /** The most array tasks running at once (`%K`). */
  arrayParallelism?: number
}

/** The longest --time taken, in minutes (a year; UNLIMITED asks for no limit at all). */
export const MAX_TIME_MINUTES = 366 * 24 * 60

const TIME_FORMS = 'minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds (e.g. 30, 2:00:00, 1-12), or UNLIMITED'

/** Slurm's forms of a time limit: `d-h`, `d-h:m`, `d-h:m:s`, `m`, `m:s`, `h:m:s`. */
const TIME = /^(?:(\d+)-)?(\d+)(?::(\d{1,2}))?(?::(\d{1,2}))?$/

/** `--time` in one of the forms sbatch accepts, at most MAX_TIME_MINUTES, or an error saying which those are. */
export function checkTime(text: string): string {
  const t = text.trim()
  if (/^(UNLIMITED|INFINITE)$/i.test(t)) return t
  const m = TIME.exec(t)
  if (!m) throw new ApiError('invalid-argument', `--time must be ${TIME_FORMS}, got "${text}"`)
  const days = m[1] === undefined ? undefined : Number(m[1])
  const rest = [m[2], m[3], m[4]].filter((p) => p !== undefined).map(Number)
  if ((days !== undefined && rest[0] > 23) || rest.slice(1).some((p) => p > 59))
    throw new ApiError('invalid-argument', `--time "${text}": hours after days go up to 23, and minutes or seconds after another part up to 59`)
  // As Slurm reads them: after days, hours[:minutes[:seconds]]; else minutes, minutes:seconds or hours:minutes:seconds.
  const [h, min, sec] = days !== undefined ? [rest[0], rest[1] ?? 0, rest[2] ?? 0] : rest.length === 3 ? rest : [0, rest[0], rest[1] ?? 0]
  const minutes = (days ?? 0) * 1440 + h * 60 + min + (sec ? 1 : 0)
  if (minutes > MAX_TIME_MINUTES) throw new ApiError('invalid-argument', `--time "${text}" is more than a year (${MAX_TIME_MINUTES} minutes); use UNLIMITED for no limit`)
  return t
}

/** A whole number of at least 1 for a Slurm count option: digits only (no 0x10, 1e2 or 2.0), at most `max`. */
export function checkCount(value: unknown, flag: string, max = 1_000_000): number | undefined {
  if (value === undefined) return undefined
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : typeof value === 'string' ? value : ''
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ApiError('invalid-argument', `--${flag} must be a whole number from 1 to ${max}, got "${String(value)}"`)
  return n
}

/** A partition name as Slurm takes it (whether it exists is sbatch's to say). */
export function checkPartition(value: string): string {
  if (!/^[\w.,-]+$/.test(value)) throw new ApiError('invalid-argument', `--partition must be a partition name (letters, digits, ., _, -; several apart by commas), got "${value}"`)
  return value
}

function text(value: unknown, field: ClusterField): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw new ApiError('invalid-argument', `--${CLUSTER_FIELDS[field].flag} must be text, got ${JSON.stringify(value)}`)
  return value
}

/** Every field given, checked as the CLI checks its flags; fields not given are left out. */
export function checkClusterRequest(fields: { [K in ClusterField]?: unknown }): ClusterRequest {
  const out: ClusterRequest = {}
  const partition = text(fields.partition, 'partition')
  const time = text(fields.time, 'time')
  if (partition !== undefined) out.partition = checkPartition(partition)
  if (time !== undefined) out.time = checkTime(time)
  for (const k of ['nodes', 'ntasks', 'cpusPerTask', 'gpusPerTask', 'arrayParallelism'] as const) {
    const n = checkCount(fields[k], CLUSTER_FIELDS[k].flag, CLUSTER_FIELDS[k].max)
    if (n !== undefined) out[k] = n
  }
  return out
}

/** Where a dashboard's backend can run on the cluster: Slurm's client commands on its PATH. */
export interface ClusterInfo {
  available: boolean
  /** Why not, when not available (e.g. which commands are missing). */
  reason?: string
}

/** A run submitted from the dashboard: its jobs, and its folder, which the backend chose. */
export interface ClusterSubmission {
  jobId: string
  mergeJobId: string
  dir: string
  tasks: number
}

/** One task of a cluster run, as the scheduler and the task's folder tell it. */
export interface ClusterTask {
  index: number
  /** The task's job id, e.g. 1234_2 for a task of an array. */
  job_id: string
  state: string
  exit_code: number | null
  signal?: number
  node: string | null
  elapsed_s: number
  /** The newest progress event the task wrote in its folder (null before its first). */
  progress: { phase: string; fraction: number; elapsed_ms?: number } | null
  /** Why it failed, in the run's own words, when it wrote them. */
  error?: string
}

/** One cluster run of this user (its tasks' job and its merge job), newest first in a list. */
export interface ClusterRun {
  /** The tasks' job (a job array when the run has several files). */
  job_id: string
  merge_job_id: string | null
  workload: string
  /** The run's folder on the cluster's shared filesystem. */
  dir: string
  state: string
  merge_state: string | null
  elapsed_s: number
  nodes: string[]
  tasks: ClusterTask[]
  /** Its merged results kept in the run history (openRun), once the merge has ended. */
  runs: string[]
  /** Why the merge left no result, when it ended without one. */
  error?: string
}

/** What a merged envelope's `cluster` says of its job, as far as the dashboard shows it (the merge writes more). */
export interface ClusterAccount {
  job_id: string | null
  nodes: string[]
  tasks: { index: number; state: string }[]
  /** Indices of the tasks that did not complete. */
  failed: number[]
}

/** A job's states once it has ended (Slurm's). */
const ENDED = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'OUT_OF_MEMORY', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'SPECIAL_EXIT']

export const hasEnded = (state: string) => ENDED.includes(state)

/** The job event id of a cluster run whose merged results were kept: `cluster-<job id>`. */
export const clusterEventId = (jobId: string) => `cluster-${jobId}`

/** What a cluster job id looks like: a job, or one task of an array (scancel takes either). */
export const CLUSTER_JOB_ID = /^\d{1,12}(_\d{1,9})?$/
