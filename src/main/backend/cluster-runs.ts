// The dashboard's cluster runs, for `paralab serve` on a login node: a workload's run submitted to
// Slurm into a folder this backend chooses under the user's cluster runs folder (a request never
// names one), this user's Paralab jobs listed with each task's progress, cancelling, and each
// dashboard run's merged results kept in the run history once its merge job has ended.
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, sep } from 'node:path'
import { CLUSTER_FIELDS, clusterEventId, hasEnded, type ClusterInfo, type ClusterRequest, type ClusterRun, type ClusterSubmission } from '../../shared/cluster'
import { ApiError } from '../../shared/errors'
import type { JobEvent } from '../../shared/jobs'
import { isWorkloadId } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import type { ParamSchema } from '../../shared/workloads/schema'
import { listJobs, type JobView } from '../cluster/follow'
import { readJobRecord, type JobRecord } from '../cluster/job-folder'
import { commandLine } from '../cluster/script-words'
import { readClusterReport, type ClusterReport } from '../cluster/cluster-report'
import { readMerged } from '../cluster/read-merged'
import { writeFileAtomic } from '../io/atomic-write'
import { managedEntry, ownedHere, readManagedJson } from '../io/managed-folder'
import { onPath } from '../cluster/slurm-command'
import { findParalabJob, paralabQueue, scancel, type QueueRecord } from '../cluster/slurm-jobs'
import { submit } from '../cluster/submit'
import { planTasks } from '../cluster/task-plan'
import type { AnyEngine } from '../engine'
import type { RunHistory } from './history'
import { pushAll } from '../../shared/extent'

/** Where dashboard runs' folders go: PARALAB_CLUSTER_RUNS, else ~/paralab/cluster-runs (home is shared on most clusters). */
export function defaultClusterRunsDir(): string {
  return process.env.PARALAB_CLUSTER_RUNS || join(homedir(), 'paralab', 'cluster-runs')
}

const SLURM_COMMANDS = ['sbatch', 'squeue', 'scontrol', 'scancel']
/** Slurm is asked at most this often however often dashboards ask: its scheduling passes come every few seconds. */
export const QUEUE_INTERVAL_MS = 3000
/** Ended runs of the runs folder that Slurm no longer lists, newest first, shown at most. */
const FORGOTTEN_SHOWN = 20
/** In a run's folder: the history ids of its kept results, or why the merge left none (no extension: a merge again leaves it be). */
const KEPT = '.dashboard-history'

interface Kept {
  runs: string[]
  error?: string
  /** Not kept yet: to be tried again (never written to the folder). */
  retry?: boolean
}

export interface ClusterRunsOptions {
  /** The cluster runs folder, on a filesystem the compute nodes share. */
  dir: string
  history?: RunHistory
  /** Tells the dashboards of a kept run, as a finished job's `done` event. */
  announce(event: JobEvent): void
}

export class ClusterRuns {
  private queue?: { at: number; records: Promise<QueueRecord[]> }
  /** Folders of runs submitted here whose results are not yet kept, followed until they are. */
  private readonly pending = new Set<string>()
  private timer?: NodeJS.Timeout
  private readonly keeping = new Map<string, Promise<Kept>>()
  /** Ended runs read from their folders (they no longer change). */
  private readonly ended = new Map<string, ClusterRun>()

  constructor(private readonly opts: ClusterRunsOptions) {}

  async info(): Promise<ClusterInfo> {
    const missing = []
    for (const c of SLURM_COMMANDS) if (!(await onPath(c))) missing.push(c)
    return missing.length ? { available: false, reason: `Slurm's client commands are not on this server's PATH (${missing.join(', ')} missing)` } : { available: true }
  }

  /** Submits a validated run of `engine`'s workload: its files readable, its parameters the dashboard's. */
  async submit(engine: AnyEngine, params: Record<string, unknown>, request: ClusterRequest): Promise<ClusterSubmission> {
    const def = engine.definition
    const schema = def.params as ParamSchema
    const filesParam = Object.entries(schema).find(([, spec]) => spec.type === 'files')?.[0]
    // A dashboard sets no command-line-only parameter (the backend refused them): the rest are flags.
    const flagParams = Object.entries(schema).filter(([, spec]) => spec.type !== 'files' && !spec.cliOnly)
    const plan = planTasks(engine, params, flagParams, filesParam)
    await mkdir(this.opts.dir, { recursive: true, mode: 0o755 })
    // The folder as Slurm will name it back (squeue's comment), symbolic links resolved.
    const root = await realpath(this.opts.dir)
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')
    const out = join(root, `${stamp}-${def.id}-${randomBytes(3).toString('hex')}`)
    const asked = Object.entries(request).flatMap(([k, v]) => [`--${CLUSTER_FIELDS[k as keyof ClusterRequest].flag}`, String(v)])
    const { dir, record } = await submit({
      workload: def.id,
      out,
      force: false,
      executor: 'slurm',
      request: { ...request, sbatchArgs: [] },
      command: [def.id],
      taskFiles: plan.taskFiles,
      flags: plan.flags,
      separate: plan.separate,
      typed: `${commandLine(['paralab', def.id, ...plan.flags, '--slurm', ...asked, '--out', out, '--', ...plan.taskFiles.flat()])} (from the dashboard)`,
      chartSize: {},
    })
    this.follow(dir)
    return { jobId: record.jobId!, mergeJobId: record.mergeJobId!, dir, tasks: record.tasks.length }
  }

  /**
   * This user's Paralab runs, newest first: each task's state and progress, and the results kept of
   * those that ended; with the ended runs of this backend's folder that Slurm no longer lists.
   */
  async list(): Promise<ClusterRun[]> {
    const runs = runsOf(await listJobs(await this.queueNow()))
    for (const run of runs) {
      if (!run.merge_state || !hasEnded(run.merge_state) || !(await this.ours(run.dir))) continue
      this.withKept(run, await this.keep(run.dir, run.merge_state === 'COMPLETED'))
    }
    pushAll(runs, await this.forgotten(new Set(runs.map((r) => r.dir))))
    return runs.sort((a, b) => Number(b.job_id) - Number(a.job_id))
  }

  /** Cancels a job or one task of an array, if it is one of this user's Paralab jobs. */
  async cancel(jobId: string): Promise<void> {
    if (!findParalabJob(await this.queueNow(), jobId)) throw new ApiError('invalid-argument', `job ${jobId} is not one of your Paralab jobs`)
    await scancel(jobId)
    this.queue = undefined
  }

  dispose(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  /** squeue's answer, asked again once it is QUEUE_INTERVAL_MS old. */
  private queueNow(): Promise<QueueRecord[]> {
    if (!this.queue || Date.now() - this.queue.at >= QUEUE_INTERVAL_MS) {
      const records = paralabQueue()
      records.catch(() => (this.queue = undefined))
      this.queue = { at: Date.now(), records }
    }
    return this.queue.records
  }

  /** Follows a run submitted here until its results are kept, whether or not a dashboard lists jobs. */
  private follow(dir: string): void {
    this.pending.add(dir)
    this.timer ??= setInterval(() => {
      this.list().then(
        (runs) => {
          for (const dir of this.pending) if (runs.some((r) => r.dir === dir && r.merge_state && hasEnded(r.merge_state))) this.pending.delete(dir)
          if (!this.pending.size) this.dispose()
        },
        (e: unknown) => console.error(`paralab: following cluster runs: ${ApiError.from(e).message}`),
      )
    }, QUEUE_INTERVAL_MS)
    this.timer.unref()
  }

  private withKept(run: ClusterRun, kept: Kept): ClusterRun {
    run.runs = kept.runs
    if (kept.error) run.error = kept.error
    return run
  }

  /**
   * Runs of this backend's folder that Slurm no longer lists (it forgets ended jobs after its
   * MinJobAge) and whose merge wrote its account: read from their folders, their results kept
   * (e.g. a run that ended while no server was following it).
   */
  private async forgotten(listed: Set<string>): Promise<ClusterRun[]> {
    const root = await realpath(this.opts.dir).catch(() => null)
    if (!root) return []
    const runs: ClusterRun[] = []
    // Folder names begin with their submission time: newest last.
    for (const name of (await readdir(root).catch(() => [] as string[])).sort().reverse()) {
      const dir = join(root, name)
      if (listed.has(dir)) continue
      // Only a folder of this user, never a link planted among the runs: its records would become this user's history.
      const entry = await managedEntry(root, [name]).catch(() => null)
      if (!entry?.stat?.isDirectory() || !ownedHere(entry.stat)) continue
      let run = this.ended.get(dir)
      if (!run) {
        // Each folder's records are checked as a merge checks them; a folder whose records are not Paralab's is passed over.
        const record = await readJobRecord(dir).catch(() => undefined)
        const report = record && (await readClusterReport(dir, record).catch(() => undefined))
        if (!record?.jobId || !report) continue
        run = endedRun(dir, record, report)
        this.ended.set(dir, run)
      }
      runs.push(this.withKept({ ...run }, await this.keep(dir, true)))
      if (runs.length === FORGOTTEN_SHOWN) break
    }
    return runs
  }

  /** Whether `dir` is a run of this backend's folder (only those are kept in its history). */
  private async ours(dir: string): Promise<boolean> {
    const root = await realpath(this.opts.dir).catch(() => null)
    return !!root && dir.startsWith(root + sep)
  }

  /**
   * Keeps a run's merged results in the history once (its folder remembers), telling the dashboards.
   * `completed`: the merge job completed, so its results are there even if this node does not see them
   * yet (a shared filesystem may show another node's files late): then a failure to read them is
   * tried again rather than remembered.
   */
  private keep(dir: string, completed: boolean): Promise<Kept> {
    let kept = this.keeping.get(dir)
    if (!kept) {
      kept = this.keepOnce(dir, completed)
      this.keeping.set(dir, kept)
      void kept.then((k) => k.retry && this.keeping.delete(dir))
    }
    return kept
  }

  private async keepOnce(dir: string, completed: boolean): Promise<Kept> {
    const marker = join(dir, KEPT)
    const earlier = await readManagedJson(dir, [KEPT], { maxBytes: 1024 * 1024 }).then(checkKept, () => undefined)
    if (earlier) return earlier
    let kept: Kept
    try {
      const merged = await readMerged(dir).catch((e: unknown) => {
        if (completed) return null
        throw e
      })
      if (!merged) return { runs: [], retry: true }
      const envelopes: ResultEnvelope[] = merged.envelope ? [merged.envelope] : merged.runs ?? []
      const runs: string[] = []
      for (const envelope of envelopes) {
        if (this.opts.history) runs.push(await this.opts.history.save(envelope))
        if (isWorkloadId(envelope.workload)) this.opts.announce({ type: 'done', jobId: clusterEventId(merged.cluster.job_id ?? ''), workload: envelope.workload, envelope })
      }
      kept = { runs }
    } catch (e) {
      kept = { runs: [], error: ApiError.from(e).message }
    }
    // Replaced whole by rename: a link planted under its name is replaced, never written through.
    await writeFileAtomic(marker, JSON.stringify(kept) + '\n', { overwrite: true }).catch((e: Error) => console.error(`paralab: cannot write ${marker}: ${e.message}`))
    return kept
  }
}

/** The marker as this backend writes it, or undefined (then the run's results are kept again). */
function checkKept(v: unknown): Kept | undefined {
  if (typeof v !== 'object' || v === null) return undefined
  const k = v as Partial<Kept>
  if (!Array.isArray(k.runs) || k.runs.length > 10_000 || k.runs.some((r) => typeof r !== 'string')) return undefined
  if (k.error !== undefined && typeof k.error !== 'string') return undefined
  return { runs: k.runs, ...(k.error !== undefined && { error: k.error }) }
}

/** The jobs (newest first) as runs: each folder's tasks job with its merge job (the newest of each, should a folder hold several). */
export function runsOf(jobs: JobView[]): ClusterRun[] {
  const byDir = new Map<string, { tasks?: JobView; merge?: JobView }>()
  for (const job of jobs) {
    const group = byDir.get(job.dir) ?? {}
    if (job.merge) group.merge ??= job
    else group.tasks ??= job
    byDir.set(job.dir, group)
  }
  const runs: ClusterRun[] = []
  for (const [dir, { tasks, merge }] of byDir) {
    const main = tasks ?? merge!
    runs.push({
      job_id: tasks?.job_id ?? main.job_id,
      merge_job_id: merge?.job_id ?? null,
      workload: main.workload,
      dir,
      state: main.state,
      merge_state: merge?.state ?? null,
      elapsed_s: main.elapsed_s,
      nodes: main.nodes,
      tasks: tasks?.tasks ?? [],
      runs: [],
    })
  }
  return runs
}

/** A run that Slurm no longer lists, as its merge's account tells it. */
function endedRun(dir: string, record: JobRecord, report: ClusterReport): ClusterRun {
  const array = record.tasks.length > 1
  return {
    job_id: record.jobId!,
    merge_job_id: record.mergeJobId ?? null,
    workload: record.workload,
    dir,
    state: report.tasks.find((t) => t.state !== 'COMPLETED')?.state ?? 'COMPLETED',
    merge_state: 'COMPLETED',
    elapsed_s: 0,
    nodes: report.nodes,
    tasks: report.tasks.map((t) => ({
      index: t.index,
      job_id: array ? `${record.jobId}_${t.index}` : record.jobId!,
      state: t.state,
      exit_code: t.exit_code,
      ...(t.signal && { signal: t.signal }),
      node: t.node ?? null,
      elapsed_s: 0,
      progress: t.state === 'COMPLETED' ? { phase: 'done', fraction: 1 } : null,
      ...(t.error && { error: t.error.message }),
    })),
    runs: [],
  }
}
