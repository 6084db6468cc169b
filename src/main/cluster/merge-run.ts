// Merging a cluster run: every task's outcome (its envelope or error, its exit record, what the
// scheduler says of it) becomes one account of the job (cluster.json) and the result set of the
// whole run in DIR, as the local run would write it, with `cluster` in its results.json; or, for a
// workload that reads one file per run, each task's result set in DIR/runs/<index>/. A merge that
// finds no task output writes nothing and says why.
import { lstat, mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises'
import { removeManaged } from '../io/managed-folder'
import { join, resolve } from 'node:path'
import { ApiError, type ApiErrorShape } from '../../shared/errors'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import type { AnyEngine, TaskPart } from '../engine'
import { writeOutputs, type OutputFile } from '../results/outputs'
import { inputFile } from '../results/envelope'
import type { WorkloadId } from '../../shared/workloads'
import { isMissing, jobPaths, readJobRecord, tail, taskPaths, writeJson, type JobRecord } from './job-folder'
import { readClusterReport, type ClusterReport, type TaskReport } from './cluster-report'
import { jobTasks, type SchedulerTask } from './slurm-jobs'
import { readTaskRecords, taskInputs } from './task-records'
import { partialMark } from './partial'
import { expandHostlist } from './hostlist'

/** A task's report and, when it finished, its envelope. */
interface TaskOutcome {
  report: TaskReport
  envelope?: ResultEnvelope
}

const STDERR_LINES = 20

/** What each task left (each file checked against the job record) and what the scheduler says of it. */
export async function taskOutcomes(dir: string, record: JobRecord): Promise<TaskOutcome[]> {
  const paths = jobPaths(dir)
  const scheduler = record.executor === 'slurm' && record.jobId ? await jobTasks(record.jobId) : undefined
  const byIndex = new Map(scheduler?.map((s) => [s.index, s]))
  const inputs = await taskInputs(record)
  const outcomes: TaskOutcome[] = []
  for (const task of record.tasks) {
    const t = taskPaths(paths.task(task.index))
    const found = await readTaskRecords(dir, record, task.index, inputs)
    const { exit } = found
    const sched: Partial<SchedulerTask> | undefined = byIndex.get(task.index) ?? (found.state && { state: found.state.state, exitCode: found.state.exit_code, signal: found.state.signal, nodes: 'local' })
    // The task's own record wins: it is newer than the scheduler's when the task was resubmitted.
    // Exit 130 is a run cancelled midway (it keeps what had finished): by the scheduler's SIGTERM
    // at the time limit or on preemption, which the scheduler's state names, else by a user.
    let state = exit ? (exit.exit_code === 0 ? 'COMPLETED' : exit.exit_code === 130 ? stoppedState(sched?.state) : 'FAILED') : sched?.state ?? 'UNKNOWN'
    let error = found.error
    // A task whose files cannot be believed, or that says it completed but left no envelope, failed.
    const problems = [...found.problems]
    if (state === 'COMPLETED' && !found.envelope && !problems.length) problems.push(`${t.envelope} is missing, though the task ended with exit 0`)
    if (problems.length) {
      state = 'FAILED'
      error = { code: 'io', message: `task ${task.index}'s outcome is unreadable: ${problems.join('; ')}` }
    }
    const report: TaskReport = {
      index: task.index,
      files: task.files,
      state,
      exit_code: exit?.exit_code ?? sched?.exitCode ?? null,
      ...(!exit && sched?.signal && { signal: sched.signal }),
      ...(nodeOf(exit?.node, sched?.nodes) && { node: nodeOf(exit?.node, sched?.nodes) }),
      ...(error && { error }),
    }
    if (state !== 'COMPLETED') report.stderr_tail = await tail(dir, ['tasks', String(task.index), 'stderr.log'], STDERR_LINES)
    outcomes.push({ report, ...(!problems.length && found.envelope && { envelope: found.envelope }) })
  }
  return outcomes
}

/** States in which the scheduler itself stopped a task, with SIGTERM first, as a user's scancel does. */
const STOPPED_BY_SCHEDULER = new Set(['TIMEOUT', 'PREEMPTED', 'DEADLINE'])

/** A task that exited 130, cancelled: the scheduler's word for why when it stopped the task, else CANCELLED. */
const stoppedState = (scheduler?: string): string => (scheduler && STOPPED_BY_SCHEDULER.has(scheduler) ? scheduler : 'CANCELLED')

/** Where a task ran: every node of the scheduler's list when its ranks spread over several, else where rank 0 says it ran. */
function nodeOf(rank0?: string, scheduled?: string): string | undefined {
  const nodes = scheduled ? expandHostlist(scheduled) : []
  return nodes.length > 1 ? nodes.join(',') : (rank0 ?? scheduled)
}

export function clusterReport(record: JobRecord, outcomes: TaskOutcome[]): ClusterReport {
  const tasks = outcomes.map((o) => o.report)
  return {
    executor: record.executor,
    job_id: record.jobId ?? null,
    merge_job_id: record.mergeJobId ?? null,
    nodes: [...new Set(tasks.flatMap((t) => (t.node ? t.node.split(',') : [])))].sort(),
    tasks,
    failed: tasks.filter((t) => t.state !== 'COMPLETED').map((t) => t.index),
    ...partialMark(outcomes),
  }
}

/** A task that left no outcome, as its workload's merge sees it. */
function partError(o: TaskOutcome): ApiErrorShape {
  const r = o.report
  if (r.error) return r.error
  const last = r.stderr_tail?.split('\n').pop()
  return {
    code: r.state === 'CANCELLED' || STOPPED_BY_SCHEDULER.has(r.state) ? 'cancelled' : 'internal',
    message: `${r.files.join(', ')}: task ${r.index} ended ${r.state}${r.exit_code ? ` (exit ${r.exit_code})` : ''}${last ? `: ${last}` : ''}`,
  }
}

/** Why a merge found nothing to merge, naming each task's end. */
function nothingToMerge(dir: string, outcomes: TaskOutcome[]): ApiError {
  const each = outcomes.map((o) => `task ${o.report.index} ${o.report.state}${o.report.exit_code ? ` exit ${o.report.exit_code}` : ''}: ${o.report.error?.message ?? o.report.stderr_tail?.split('\n').pop() ?? 'no output'}`)
  return new ApiError('invalid-input', `no task of the job in ${dir} left a result (${each.join('; ')})`)
}

/** The files parameter of a workload, by its schema. */
function filesParam(engine: AnyEngine): string | undefined {
  return Object.entries(engine.definition.params as Record<string, { type: string }>).find(([, spec]) => spec.type === 'files')?.[0]
}

/** The input files of a task that left no envelope, as an envelope records them (a file gone is left out). */
async function inputFiles(record: JobRecord, files: string[]): Promise<ResultEnvelope['input']['files']> {
  const out: ResultEnvelope['input']['files'] = []
  for (const f of files) {
    const path = await realpath(resolve(record.cwd, f)).catch(() => undefined)
    const file = path && (await inputFile(path, record.workload as WorkloadId, f).catch(() => undefined))
    if (file) out.push(file)
  }
  return out
}

/** The tasks' envelopes as the one envelope of a run over all their files. */
async function mergedEnvelope(engine: AnyEngine, record: JobRecord, outcomes: TaskOutcome[]): Promise<ResultEnvelope> {
  const envelopes = outcomes.flatMap((o) => (o.envelope ? [o.envelope] : []))
  const cluster = engine.cluster
  if (envelopes.length === outcomes.length && outcomes.length === 1) return { ...envelopes[0], ...partialMark(outcomes) }
  if (cluster?.split !== 'file' || !cluster.merge) throw new ApiError('internal', `${record.workload}: no merge of several tasks`)
  const parts: TaskPart<unknown>[] = outcomes.map((o) => ({
    file: o.report.files[0],
    ...(o.envelope ? { outcome: { results: o.envelope.results, timings: o.envelope.timings } } : { error: partError(o) }),
  }))
  const merged = (cluster.merge as (p: TaskPart<unknown>[]) => { results: unknown; timings: ResultEnvelope['timings'] })(parts)
  const first = envelopes[0]
  const files = filesParam(engine)
  const device = envelopes.find((e) => e.device)?.device
  return {
    workload: first.workload,
    paralabVersion: first.paralabVersion,
    ...(first.paralabCommit && { paralabCommit: first.paralabCommit }),
    createdAt: envelopes.map((e) => e.createdAt).sort()[0],
    params: files && first.params && typeof first.params === 'object' ? { ...first.params, [files]: record.tasks.flatMap((t) => t.files) } : first.params,
    input: { files: (await Promise.all(outcomes.map((o) => (o.envelope ? o.envelope.input.files : inputFiles(record, o.report.files))))).flat() },
    host: first.host,
    ...(device && { device }),
    timings: merged.timings,
    ...partialMark(outcomes),
    results: merged.results,
  }
}

export interface MergeOutcome {
  /** The merged envelope (with `cluster`), or each file's own when the workload reads one file per run. */
  envelope?: ResultEnvelope & { cluster: ClusterReport }
  runs?: ResultEnvelope[]
  cluster: ClusterReport
}

/**
 * Places a result set among the job's files: rendered whole into a hidden folder first (nothing
 * is placed if any file fails), then moved in with results.json last. Only files an earlier merge
 * wrote (listed in its cluster.json) are replaced or removed: a file of the user's that has the
 * name of a result file is left as it is, and the merge refused naming it.
 */
async function placeResultSet(dir: string, env: ResultEnvelope, cluster: ClusterReport, opts: { chartSize: JobRecord['chartSize']; extra?: OutputFile[] }): Promise<void> {
  const staging = join(dir, `.merge-${process.pid}`)
  await rm(staging, { recursive: true, force: true })
  try {
    await writeOutputs(staging, env, { chartSize: opts.chartSize, extra: opts.extra })
    const files = (await readdir(staging)).sort((a, b) => Number(a === 'results.json') - Number(b === 'results.json'))
    const earlier = (await readClusterReport(dir).catch(() => undefined))?.outputs ?? []
    for (const name of files)
      if (!earlier.includes(name) && !(await isMissing(join(dir, name))))
        throw new ApiError('io', `${join(dir, name)} is not a file that an earlier merge wrote (its cluster.json does not list it), so the merge will not replace it: move it out of the job folder and merge again`)
    // Both sets are listed while one replaces the other, so that a merge killed midway leaves no file of its own unlisted.
    await writeJson(jobPaths(dir).summary, { ...cluster, outputs: [...new Set([...earlier, ...files])].sort() })
    for (const name of earlier) if (!files.includes(name)) await removeManaged(dir, [name])
    for (const name of files) await rename(join(staging, name), join(dir, name))
    await writeJson(jobPaths(dir).summary, { ...cluster, outputs: [...files].sort() })
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/** DIR/runs, made if absent: a folder inside the job folder, never a link out of it. */
async function runsFolder(dir: string): Promise<void> {
  const runs = join(dir, 'runs')
  await mkdir(runs).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw new ApiError('io', `cannot make ${runs}: ${e.message}`)
  })
  const s = await lstat(runs)
  if (!s.isDirectory()) throw new ApiError('io', `${runs} is ${s.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: the merge writes only inside the job folder`)
}

/** Merges the job in `dir`: writes cluster.json and the result set(s), or nothing when no task left a result. */
export async function mergeJob(dir: string, engineFor: (workload: string) => AnyEngine): Promise<MergeOutcome> {
  const record = await readJobRecord(dir)
  const engine = engineFor(record.workload)
  const outcomes = await taskOutcomes(dir, record)
  if (!outcomes.some((o) => o.envelope)) throw nothingToMerge(dir, outcomes)
  const outputFiles = engine.cli.outputFiles as ((r: unknown) => Promise<OutputFile[]>) | undefined
  const paths = jobPaths(dir)
  if (record.separate) {
    const runs: ResultEnvelope[] = []
    await runsFolder(dir)
    for (const o of outcomes) {
      if (!o.envelope) continue
      // An earlier merge's run folder, never followed if it is a link (io/managed-folder.ts).
      await removeManaged(dir, ['runs', String(o.report.index)])
      await writeOutputs(paths.run(o.report.index), o.envelope, { chartSize: record.chartSize, extra: await outputFiles?.(o.envelope.results) })
      o.report.run = `runs/${o.report.index}`
      runs.push(o.envelope)
    }
    const cluster = clusterReport(record, outcomes)
    await writeJson(paths.summary, cluster)
    return { runs, cluster }
  }
  const cluster = clusterReport(record, outcomes)
  const envelope = { ...(await mergedEnvelope(engine, record, outcomes)), cluster }
  await placeResultSet(dir, envelope, cluster, { chartSize: record.chartSize, extra: await outputFiles?.(envelope.results) })
  return { envelope, cluster }
}
