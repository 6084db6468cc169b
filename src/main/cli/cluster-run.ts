// The cluster side of every workload command: `--slurm` (and `--executor local`) with Slurm's
// options turns a run into a job folder, scripts and jobs (src/main/cluster); `--wait` follows the
// job and prints its merged results as the local run prints them, with its exit code.
import type { ChartSize } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { progressPercent } from '../../shared/jobs'
import type { ParamSpec } from '../../shared/workloads/schema'
import { localRankGpus, runLocally } from '../cluster/local-executor'
import { type MergeOutcome } from '../cluster/merge-run'
import { readMerged } from '../cluster/read-merged'
import { commandLine, commentText } from '../cluster/script-words'
import { submit } from '../cluster/submit'
import { planTasks } from '../cluster/task-plan'
import { waitForJob } from '../cluster/follow'
import type { AnyEngine } from '../engine'
import type { ClusterMode } from './cluster-flags'
import { writeJson } from '../terminal/command'
import { describeRun, presentRun, runFailures } from './present'
import { pushAll } from '../../shared/extent'
import { onInterrupt } from '../terminal/interrupt'

export interface ClusterCommand {
  engine: AnyEngine
  /** The command's words, e.g. ['stats'] or ['bench', 'device']. */
  command: string[]
  /** The parameters as the run would get them (files expanded, the example's filled in). */
  params: Record<string, unknown>
  /** Parameters the command takes as flags: those the task's command line repeats. */
  flagParams: [string, ParamSpec][]
  filesParam?: string
  /** Flags naming files the run writes (e.g. --output FILE): the task writes them. */
  fileFlags: Record<string, string>
  out: string
  force: boolean
  json: boolean
  chartSize: ChartSize
  /** The command line as typed, word by word (the job script's header shows it quoted). */
  typed: string[]
}

/** Submits (or runs locally) a workload command as a cluster job; waits when asked. Returns the exit code. */
export async function runOnCluster(mode: ClusterMode, c: ClusterCommand): Promise<number> {
  const plan = planTasks(c.engine, c.params, c.flagParams, c.filesParam)
  const flags = [...plan.flags, ...Object.entries(c.fileFlags).map(([flag, path]) => `--${flag}=${path}`)]
  const checkpoints = !!(c.engine.checkpoints as ((p: unknown) => boolean) | undefined)?.(c.params)
  const { dir, record, notes, scripts } = await submit({
    workload: c.engine.definition.id,
    out: c.out,
    force: c.force,
    executor: mode.executor,
    request: mode.request,
    command: c.command,
    taskFiles: plan.taskFiles,
    flags,
    separate: plan.separate,
    // A checkpointing run is warned a minute before its time limit and goes back into the queue, to resume.
    ...(checkpoints && { extraSbatch: ['--signal=B:USR1@60', '--requeue'], requeueOn: 'USR1' }),
    checkpoints,
    typed: commandLine(c.typed),
    chartSize: c.chartSize,
  })
  for (const note of notes) process.stderr.write(`paralab: ${note}\n`)
  const tasks = record.tasks.length
  const controller = new AbortController()
  const stopListening = onInterrupt(() => controller.abort(new ApiError('cancelled', 'cancelled')))
  try {
    if (mode.executor === 'local') {
      process.stderr.write(`paralab: running ${tasks} task${tasks === 1 ? '' : 's'} of ${dir}/job.sbatch here (--executor local)\n`)
      const gpus = localRankGpus(mode.request.gpusPerTask)
      if (gpus.note) process.stderr.write(`paralab: ${gpus.note}\n`)
      await runLocally(
        dir,
        record,
        scripts,
        mode.request.arrayParallelism,
        controller.signal,
        (index, s) => process.stderr.write(`paralab: task ${index} (${commentText(record.tasks[index].files.join(' '))}) ${s.state}${s.exit_code ? ` exit ${s.exit_code}` : ''}\n`),
        gpus.env,
      )
    } else {
      if (!mode.wait) {
        if (c.json) writeJson({ job_id: record.jobId, merge_job_id: record.mergeJobId, dir, tasks })
        else process.stdout.write(`${record.jobId}\n`)
        process.stderr.write(`paralab: submitted job ${record.jobId} (${tasks} task${tasks === 1 ? '' : 's'}) and its merge job ${record.mergeJobId}; the results will be in ${dir}\n`)
        return 0
      }
      process.stderr.write(`paralab: submitted job ${record.jobId} (${tasks} task${tasks === 1 ? '' : 's'}) and its merge job ${record.mergeJobId}; waiting\n`)
      await waitForJob(dir, record, (e) => {
        const p = e.progress ? `  ${String(progressPercent(e.progress.fraction)).padStart(3)}%  ${e.progress.phase}` : ''
        process.stderr.write(`paralab: task ${e.index} (${commentText(e.files.join(' '))}) ${e.state}${e.reason ? ` (${e.reason})` : ''}${p}\n`)
      }, controller.signal)
    }
  } finally {
    stopListening()
  }
  return presentMerged(c.engine, await readMerged(dir), c.json)
}

/** Prints a merged run as the local run prints its results, then the tasks that failed; returns the exit code. */
export function presentMerged(engine: AnyEngine, merged: MergeOutcome, json: boolean): number {
  let code = 0
  const said: string[] = []
  if (merged.envelope) {
    code = presentRun(engine, merged.envelope, json)
    pushAll(said, runFailures(engine, merged.envelope))
  } else {
    const runs = merged.runs ?? []
    if (json) writeJson({ workload: engine.definition.id, runs, cluster: merged.cluster })
    for (const run of runs) {
      if (!json) process.stdout.write(describeRun(engine, run))
      for (const f of runFailures(engine, run)) {
        process.stderr.write(`paralab: ${f}\n`)
        said.push(f)
        code = 1
      }
    }
  }
  // A failed task is named unless the workload's own failures already name its file.
  for (const t of merged.cluster.tasks.filter((t) => t.state !== 'COMPLETED')) {
    code = 1
    if (said.some((s) => t.files.some((f) => s.includes(f)))) continue
    const why = t.error?.message ?? t.stderr_tail?.split('\n').pop() ?? ''
    process.stderr.write(`paralab: task ${t.index} (${commentText(t.files.join(' '))}) ${t.state}${t.exit_code ? `, exit code ${t.exit_code}` : ''}${t.signal ? `, signal ${t.signal}` : ''}${why ? `: ${why}` : ''}\n`)
  }
  return code
}
