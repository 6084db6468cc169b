// Writing a cluster run's folder and scripts and handing them to Slurm: the tasks' job (one task,
// or an array of one task per file), then the merge job after it (`--dependency=afterany`), so the
// result set is written however the tasks end.
import { mkdir, rm, stat } from 'node:fs/promises'
import { writeFileAtomic } from '../io/atomic-write'
import { resolve } from 'node:path'
import { ApiError } from '../../shared/errors'
import type { ChartSize } from '../../shared/api'
import { checkTaskCount, jobPaths, writeJson, type Executor, type JobRecord } from './job-folder'
import { prepareJobFolder, removeJobFiles } from './job-folder-reuse'
import { mergeScript, taskScript, type TaskScript } from './job-script'
import type { JobScripts } from './local-executor'
import type { SlurmRequest } from './options'
import { onPath } from './slurm-command'
import { writeRanksKey } from '../ranks/job-key'
import { sbatch, scancel } from './slurm-jobs'

export interface ClusterRun {
  workload: string
  /** `--out DIR`, as given. */
  out: string
  force: boolean
  executor: Executor
  request: SlurmRequest
  /** The workload command's words before its files, e.g. ['stats']. */
  command: string[]
  taskFiles: string[][]
  flags: string[]
  /** Each task keeps its own result set. */
  separate: boolean
  typed: string
  chartSize: ChartSize
  /** See TaskScript: extra #SBATCH lines and the requeue signal, for checkpointing runs. */
  extraSbatch?: string[]
  requeueOn?: string
  /** The run checkpoints: started again with the same command into the same folder, it resumes. */
  checkpoints?: boolean
}

/** The node binary and CLI that run this command: the jobs run the same installation. */
export function thisParalab(): [string, string] {
  return [process.execPath, process.argv[1]]
}

/**
 * Writes the job folder and scripts; with Slurm, submits both jobs. Returns the job's record and
 * what became of an earlier run in the folder (resumed, or replaced with its checkpoints).
 */
export async function submit(run: ClusterRun): Promise<{ dir: string; record: JobRecord; notes: string[]; scripts: JobScripts }> {
  if (run.executor === 'slurm') {
    const missing = []
    for (const c of ['sbatch', 'squeue', 'scontrol']) if (!(await onPath(c))) missing.push(c)
    if (missing.length) throw new ApiError('invalid-argument', `--slurm needs Slurm's client commands, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not on the PATH (Debian: slurm-client); --executor local runs the job's tasks on this machine instead`)
  }
  checkTaskCount(run.taskFiles.length)
  // The scripts are made first: a value they cannot carry is refused before anything is written.
  const cwd = process.cwd()
  const script: TaskScript = {
    name: `paralab-${run.workload}`,
    dir: resolve(run.out),
    cwd,
    paralab: thisParalab(),
    request: run.request,
    command: run.command,
    taskFiles: run.taskFiles,
    flags: run.flags,
    typed: run.typed,
    extraSbatch: run.extraSbatch,
    requeueOn: run.requeueOn,
  }
  const scripts: JobScripts = { task: taskScript(script), merge: mergeScript(script) }
  const created = !(await stat(run.out).catch(() => null))
  const { dir, notes } = await prepareJobFolder(
    run.out,
    { workload: run.workload, commandWords: run.command, cwd, taskFiles: run.taskFiles, flags: run.flags },
    { force: run.force, checkpoints: !!run.checkpoints },
  )
  const paths = jobPaths(dir)
  const record: JobRecord = {
    workload: run.workload,
    command: run.typed,
    cwd,
    executor: run.executor,
    tasks: run.taskFiles.map((files, index) => ({ index, files })),
    separate: run.separate,
    commandWords: run.command,
    flags: run.flags,
    chartSize: run.chartSize,
    submittedAt: new Date().toISOString(),
  }
  try {
    // Slurm opens each task's log before the task runs: its folder must exist.
    for (const t of record.tasks) await mkdir(paths.task(t.index), { recursive: true, mode: 0o755 })
    // A task's ranks prove to each other that they belong to it with a key only this user can read, there before any rank starts.
    if ((run.request.ntasks ?? 1) > 1) for (const t of record.tasks) await writeRanksKey(paths.task(t.index))
    // For people to read and submit again by hand: replaced whole, never written through a link.
    // What runs is `scripts`, from memory (sbatch's stdin, the local executor's private copy).
    await writeFileAtomic(paths.script, scripts.task, { overwrite: true })
    await writeFileAtomic(paths.mergeScript, scripts.merge, { overwrite: true })
    await writeJson(paths.record, record)
    if (run.executor === 'slurm') {
      record.jobId = await sbatch(scripts.task)
      try {
        record.mergeJobId = await sbatch(scripts.merge, record.jobId)
      } catch (e) {
        await scancel(record.jobId).catch(() => undefined)
        throw e
      }
      await writeJson(paths.record, record)
    }
    return { dir, record, notes, scripts }
  } catch (e) {
    // Nothing was submitted (or it was cancelled): no job folder is left behind, nor any file of
    // this job in a folder that was there before (its checkpoints, to resume from, are kept).
    if (created) await rm(dir, { recursive: true, force: true })
    else await removeJobFiles(dir, record, true)
    throw e
  }
}
