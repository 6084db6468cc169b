// The task side of a cluster run: a workload command run with `--task-dir DIR/tasks/<index>`
// writes its outcome there instead of a result set. Under `srun` a task has several ranks
// (SLURM_PROCID of SLURM_NTASKS); rank 0 writes the envelope, the error, the exit record and the
// progress events, and every other rank only its own log (rank-<r>.log), so no two processes
// ever write one file.
import { appendFile, rm, stat } from 'node:fs/promises'
import { hostname } from 'node:os'
import type { ApiErrorShape } from '../../shared/errors'
import { ApiError } from '../../shared/errors'
import type { JobProgress } from '../../shared/jobs'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { taskPaths, writeJson } from './job-folder'

export interface TaskExit {
  exit_code: number
  ended: string
  node: string
}

export class TaskFolder {
  private readonly paths: ReturnType<typeof taskPaths>
  private readonly started = performance.now()
  /** Events are appended one after another, in order, the exit record after the last. */
  private written: Promise<void> = Promise.resolve()

  private constructor(
    readonly dir: string,
    readonly rank: number,
    readonly size: number,
  ) {
    this.paths = taskPaths(dir)
  }

  /** The task's folder, checked to be there: a node that does not share `--out` cannot see it. */
  static async open(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<TaskFolder> {
    const s = await stat(dir).catch(() => null)
    if (!s?.isDirectory())
      throw new ApiError('io', `the task folder ${dir} is not visible on ${env.SLURMD_NODENAME ?? hostname()}: --out must be a folder that the compute nodes share`)
    const folder = new TaskFolder(dir, Number(env.SLURM_PROCID ?? 0), Number(env.SLURM_NTASKS ?? 1))
    // A task run again (requeued, resubmitted) starts without the outcome of its earlier run.
    if (folder.writesOutcome) for (const p of [folder.paths.envelope, folder.paths.error, folder.paths.exit, folder.paths.progress]) await rm(p, { force: true })
    else await rm(folder.paths.rankLog(folder.rank), { force: true })
    return folder
  }

  get writesOutcome(): boolean {
    return this.rank === 0
  }

  /** One event per line, as `--progress json` prints them, for `paralab jobs` and `--wait`. */
  progress(p: JobProgress): Promise<void> {
    const event = { ...p, elapsed_ms: Math.round(performance.now() - this.started) }
    this.written = this.written.then(() => (this.writesOutcome ? appendFile(this.paths.progress, JSON.stringify(event) + '\n') : this.log(`${(p.fraction * 100).toFixed(0)}% ${p.phase}`))).catch(() => undefined)
    return this.written
  }

  async succeeded(envelope: ResultEnvelope, exitCode: number): Promise<void> {
    if (this.writesOutcome) await writeJson(this.paths.envelope, envelope)
    await this.exit(exitCode)
  }

  async failed(error: ApiErrorShape, exitCode: number): Promise<void> {
    if (this.writesOutcome) await writeJson(this.paths.error, { code: error.code, message: error.message })
    else await this.log(`error: ${error.message}`)
    await this.exit(exitCode)
  }

  private async exit(exitCode: number): Promise<void> {
    await this.written
    if (this.writesOutcome) {
      await appendFile(this.paths.progress, JSON.stringify({ type: 'done', exit_code: exitCode, elapsed_ms: Math.round(performance.now() - this.started) }) + '\n')
      await writeJson(this.paths.exit, { exit_code: exitCode, ended: new Date().toISOString(), node: process.env.SLURMD_NODENAME ?? hostname() } satisfies TaskExit)
    } else await this.log(`exit ${exitCode}`)
  }

  private log(line: string): Promise<void> {
    return appendFile(this.paths.rankLog(this.rank), `${new Date().toISOString()} rank ${this.rank}/${this.size}: ${line}\n`)
  }
}
