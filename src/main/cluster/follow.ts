// Following cluster runs: the jobs this user submitted from Paralab (squeue --json), each task's
// state and, while it runs, its progress, read from the events the task appends to its folder
// (not from asking the scheduler more often); and waiting for one run to end.
import { readManagedJson, readManagedTail } from '../io/managed-folder'
import { hasEnded, type ClusterTask } from '../../shared/cluster'
import { ApiError } from '../../shared/errors'
import type { JobRecord } from './job-folder'
import { jobPaths, TAIL_BYTES } from './job-folder'
import { expandIndices, jobTasks, paralabQueue, type QueueRecord } from './slurm-jobs'
import { maxOf } from '../../shared/extent'

/** A task's newest progress event, as its folder holds it. */
export type TaskProgress = NonNullable<ClusterTask['progress']>

/** One task as `paralab jobs` and the dashboard show it. */
export type JobTaskView = ClusterTask

export interface JobView {
  job_id: string
  name: string
  workload: string
  /** The merge job of a run, which merges the run's tasks into its result set. */
  merge: boolean
  dir: string
  state: string
  elapsed_s: number
  nodes: string[]
  tasks: JobTaskView[]
}

export { hasEnded }

/**
 * The newest progress event a task wrote (null before its first, or when it wrote none); from the
 * end of its events file only, which is opened only if it is a regular file (a FIFO would wait).
 */
export async function taskProgress(dir: string, index: number): Promise<TaskProgress | null> {
  const text = await readManagedTail(...inJob(dir, index, 'progress.ndjson'), { maxBytes: TAIL_BYTES }).then((b) => b.toString('utf8'), () => '')
  const lines = text.split('\n').filter(Boolean)
  // A run that ended with an error: how far it had come, not a full bar.
  let failed: { exit: number; elapsed_ms?: number } | undefined
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const e = JSON.parse(lines[i]) as { type?: string; phase?: string; fraction?: number; elapsed_ms?: number; exit_code?: number }
      if (e.type === 'done' && !failed && e.exit_code !== undefined && e.exit_code !== 0) failed = { exit: e.exit_code, elapsed_ms: e.elapsed_ms }
      else if (e.type === 'done' && !failed) return { phase: 'done', fraction: 1, elapsed_ms: e.elapsed_ms }
      else if (typeof e.phase === 'string' && typeof e.fraction === 'number')
        return failed ? { phase: `ended with exit ${failed.exit} in ${e.phase}`, fraction: e.fraction, elapsed_ms: failed.elapsed_ms } : { phase: e.phase, fraction: e.fraction, elapsed_ms: e.elapsed_ms }
    } catch {
      // A line being written as we read: the one before it will do.
    }
  }
  return failed ? { phase: `ended with exit ${failed.exit}`, fraction: 0, elapsed_ms: failed.elapsed_ms } : null
}

/** A file of task `index`'s folder as the job folder and the parts below it, each checked (io/managed-folder.ts). */
const inJob = (dir: string, index: number, name: string): [string, string[]] => [dir, ['tasks', String(index), name]]

/** Why a task's run failed, in its own words (the error it wrote in its folder), if it wrote one. */
export async function taskError(dir: string, index: number): Promise<string | undefined> {
  // A record in a shared folder: a regular file only (no FIFO to hang on, no symlink), of bounded size.
  const record = await readManagedJson(...inJob(dir, index, 'error.json'), { maxBytes: 64 * 1024 }).catch(() => undefined)
  const message = record && typeof record === 'object' ? (record as { message?: unknown }).message : undefined
  return typeof message === 'string' ? message.slice(0, 2000) : undefined
}

/** The state of a group of tasks: the first of these that any task is in. */
function overallState(states: string[]): string {
  for (const s of ['RUNNING', 'COMPLETING', 'PENDING', 'CONFIGURING', 'SUSPENDED', 'REQUEUED']) if (states.includes(s)) return s
  const ended = states.filter((s) => s !== 'COMPLETED')
  return ended[0] ?? 'COMPLETED'
}

const now = () => Math.floor(Date.now() / 1000)

/**
 * The jobs this user submitted from Paralab, newest first, each with its tasks. `queue`: what
 * squeue said a moment ago (a dashboard reads its tasks' progress more often than it asks Slurm).
 */
export async function listJobs(queue?: QueueRecord[]): Promise<JobView[]> {
  const groups = new Map<number, QueueRecord[]>()
  for (const r of queue ?? (await paralabQueue())) {
    const id = r.array_job_id || r.job_id
    groups.set(id, [...(groups.get(id) ?? []), r])
  }
  const jobs: JobView[] = []
  for (const [id, records] of groups) {
    const first = records[0]
    const dir = first.comment.slice('paralab:'.length)
    const merge = first.name.endsWith('-merge')
    const tasks: JobTaskView[] = []
    for (const r of records) {
      const pendingRest = r.array_task_string ? expandIndices(r.array_task_string) : undefined
      for (const index of pendingRest ?? [r.array_job_id ? r.array_task_id ?? 0 : 0]) {
        const running = r.job_state === 'RUNNING'
        tasks.push({
          index,
          job_id: r.array_job_id ? `${id}_${index}` : String(id),
          state: r.job_state,
          exit_code: hasEnded(r.job_state) ? r.exit_code >> 8 : null,
          ...(r.exit_code & 0x7f && { signal: r.exit_code & 0x7f }),
          node: r.nodes || null,
          elapsed_s: r.start_time ? Math.max(0, (hasEnded(r.job_state) ? r.end_time : now()) - r.start_time) : 0,
          progress: merge ? null : running || hasEnded(r.job_state) ? await taskProgress(dir, index) : null,
        })
        const ended = tasks[tasks.length - 1]
        const error = !merge && hasEnded(r.job_state) && r.job_state !== 'COMPLETED' ? await taskError(dir, index) : undefined
        if (error) ended.error = error
      }
    }
    tasks.sort((a, b) => a.index - b.index)
    jobs.push({
      job_id: String(id),
      name: first.name,
      workload: first.name.replace(/^paralab-/, '').replace(/-merge$/, ''),
      merge,
      dir,
      state: overallState(tasks.map((t) => t.state)),
      elapsed_s: Math.max(0, maxOf(tasks.map((t) => t.elapsed_s))),
      nodes: [...new Set(tasks.flatMap((t) => (t.node ? t.node.split(',') : [])))].sort(),
      tasks,
    })
  }
  return jobs.sort((a, b) => Number(b.job_id) - Number(a.job_id))
}

export interface WaitEvent {
  index: number
  files: string[]
  state: string
  /** Why Slurm keeps the task pending (Priority, Resources, …), while it does. */
  reason?: string
  progress: TaskProgress | null
}

/**
 * Reasons for which Slurm keeps a job pending that no waiting ends: the job asks for what its
 * partition or the cluster cannot give. ReqNodeNotAvail counts only when it names nodes that are
 * down, drained or not responding (UnavailableNodes).
 */
const NEVER_STARTS: Record<string, string> = {
  PartitionConfig: 'it asks for more than its partition has or allows (nodes, CPUs, memory or GPUs)',
  PartitionNodeLimit: 'it asks for more nodes than its partition allows, or the nodes it needs are down or drained',
  PartitionTimeLimit: 'its --time is longer than its partition allows',
  BadConstraints: 'its constraints cannot be satisfied',
  InvalidAccount: 'its account is not valid',
  InvalidQOS: 'its QOS is not valid',
  DependencyNeverSatisfied: 'the job it waits for can never satisfy its dependency',
  ReqNodeNotAvail: 'nodes it needs are down, drained or not responding',
}

/** Why a pending job can never start, as Slurm says, or undefined while it may. */
export function neverStarts(state: string, reason: string): string | undefined {
  if (state !== 'PENDING') return undefined
  const code = reason.split(',')[0]
  if (code === 'ReqNodeNotAvail' && !/UnavailableNodes:\S/.test(reason)) return undefined
  const why = NEVER_STARTS[code]
  return why && `Slurm keeps it pending with reason ${reason.replace(/_/g, ' ')}: ${why}`
}

/**
 * Waits for a submitted run's merge job to end, calling `onChange` when a task's state, pending
 * reason or phase changes. Slurm is asked every `pollMs` (its scheduling passes come every few
 * seconds). A job Slurm says it can never start ends the wait with that reason (it stays queued).
 */
export async function waitForJob(dir: string, record: JobRecord, onChange: (e: WaitEvent) => void, signal: AbortSignal, pollMs = 2000): Promise<string> {
  const seen = new Map<number, string>()
  for (;;) {
    const tasks = (await jobTasks(record.jobId!)) ?? []
    for (const t of record.tasks) {
      const s = tasks.find((x) => x.index === t.index)
      const progress = s?.state === 'RUNNING' ? await taskProgress(dir, t.index) : null
      const reason = s?.state === 'PENDING' && s.reason && s.reason !== 'None' ? s.reason : undefined
      const key = `${s?.state ?? 'UNKNOWN'} ${reason ?? ''} ${progress?.phase ?? ''}`
      if (seen.get(t.index) !== key) {
        seen.set(t.index, key)
        onChange({ index: t.index, files: t.files, state: s?.state ?? 'UNKNOWN', ...(reason && { reason }), progress })
      }
    }
    const merge = (await jobTasks(record.mergeJobId!))?.[0]
    const queued = [...tasks.map((t) => ({ job: `job ${record.jobId}`, ...t })), ...(merge ? [{ job: `merge job ${record.mergeJobId}`, ...merge }] : [])]
    for (const s of queued) {
      const why = neverStarts(s.state, s.reason)
      // Cancelling the tasks' job lets the merge job run and end too.
      if (why) throw new ApiError('io', `${s.job} can never start: ${why}. It stays in the queue until cancelled: paralab jobs cancel ${record.jobId}`)
    }
    if (!merge || hasEnded(merge.state)) return merge?.state ?? 'UNKNOWN'
    await new Promise<void>((resolve, reject) => {
      // The listener goes with its poll: a long wait would otherwise pile one up per poll.
      const abort = () => {
        clearTimeout(timer)
        reject(signal.reason)
      }
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', abort)
        resolve()
      }, pollMs)
      signal.addEventListener('abort', abort, { once: true })
    })
  }
}
