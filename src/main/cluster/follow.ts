// Following cluster runs: the jobs this user submitted from Paralab (squeue --json), each task's
// state and, while it runs, its progress, read from the events the task appends to its folder
// (not from asking the scheduler more often); and waiting for one run to end.
import { readFile } from 'node:fs/promises'
import { hasEnded, type ClusterTask } from '../../shared/cluster'
import type { JobRecord } from './job-folder'
import { jobPaths, taskPaths } from './job-folder'
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

/** The newest progress event a task wrote (null before its first, or when it wrote none). */
export async function taskProgress(taskDir: string): Promise<TaskProgress | null> {
  const text = await readFile(taskPaths(taskDir).progress, 'utf8').catch(() => '')
  const lines = text.split('\n').filter(Boolean)
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const e = JSON.parse(lines[i]) as { type?: string; phase?: string; fraction?: number; elapsed_ms?: number }
      if (e.type === 'done') return { phase: 'done', fraction: 1, elapsed_ms: e.elapsed_ms }
      if (typeof e.phase === 'string' && typeof e.fraction === 'number') return { phase: e.phase, fraction: e.fraction, elapsed_ms: e.elapsed_ms }
    } catch {
      // A line being written as we read: the one before it will do.
    }
  }
  return null
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
          progress: merge ? null : running || hasEnded(r.job_state) ? await taskProgress(jobPaths(dir).task(index)) : null,
        })
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
  progress: TaskProgress | null
}

/**
 * Waits for a submitted run's merge job to end, calling `onChange` when a task's state or phase
 * changes. Slurm is asked every `pollMs` (its scheduling passes come every few seconds).
 */
export async function waitForJob(dir: string, record: JobRecord, onChange: (e: WaitEvent) => void, signal: AbortSignal, pollMs = 2000): Promise<string> {
  const seen = new Map<number, string>()
  for (;;) {
    const tasks = (await jobTasks(record.jobId!)) ?? []
    for (const t of record.tasks) {
      const s = tasks.find((x) => x.index === t.index)
      const progress = s?.state === 'RUNNING' ? await taskProgress(jobPaths(dir).task(t.index)) : null
      const key = `${s?.state ?? 'UNKNOWN'} ${progress?.phase ?? ''}`
      if (seen.get(t.index) !== key) {
        seen.set(t.index, key)
        onChange({ index: t.index, files: t.files, state: s?.state ?? 'UNKNOWN', progress })
      }
    }
    const merge = (await jobTasks(record.mergeJobId!))?.[0]
    if (!merge || hasEnded(merge.state)) return merge?.state ?? 'UNKNOWN'
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, pollMs)
      signal.addEventListener('abort', () => {
        clearTimeout(timer)
        reject(signal.reason)
      }, { once: true })
    })
  }
}

