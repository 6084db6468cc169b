// Starts the ranks of a job on this machine, as `srun --ntasks R` would on a cluster: R processes
// of one command, each with SLURM_PROCID, SLURM_NTASKS, SLURM_JOB_ID (unique to the launch), the
// job folder, SLURM_LOCALID (its index on this node, which picks its GPU) and the job's key (a
// fresh one per launch, in the environment only: job-key.ts) in its environment. For tests, and
// for running a job's script without Slurm. With `fences`, rank k starts where it can see only its
// GPU's device node (src/main/gpu/fence.ts).
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { newRanksKey, RANKS_KEY_VARIABLE } from './job-key'
import { fencedCommand, type RankFences } from '../gpu/fence'
import { JOB_DIR_VARIABLE } from './placement'

export interface LaunchOptions {
  command: string
  args: string[]
  ranks: number
  /** The job folder (shared by the ranks: rank 0 publishes its address there). */
  folder: string
  env?: NodeJS.ProcessEnv
  /** The job's id; default a fresh `local-…` one. */
  jobId?: string
  /** A GPU each: rank k fenced onto fences[k] (rankFences). */
  fences?: Extract<RankFences, { ok: true }>
  /**
   * Each rank's stdin a pipe from this process, and TETHER_VARIABLE set: a rank that honours it
   * (tetherToLauncher) exits when the pipe closes, i.e. when this process ends, however it ends.
   */
  tether?: boolean
}

export const TETHER_VARIABLE = 'PARALAB_RANK_TETHERED'

/** In a tethered rank: exits (status 1) once the launcher is gone, without keeping the process alive otherwise. */
export function tetherToLauncher(env: NodeJS.ProcessEnv = process.env): void {
  if (env[TETHER_VARIABLE] !== '1') return
  const stdin = process.stdin as NodeJS.ReadStream & { unref?: () => void }
  const gone = () => {
    process.stderr.write('paralab: the process that started this rank is gone; stopping\n')
    process.exit(1)
  }
  stdin.on('end', gone)
  stdin.on('error', gone)
  stdin.resume()
  stdin.unref?.()
}

export interface RankExit {
  rank: number
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface LaunchedRanks {
  jobId: string
  processes: ChildProcess[]
  /** Every rank's exit, in rank order, once all have exited. */
  exited: Promise<RankExit[]>
}

export function launchRanks(opts: LaunchOptions): LaunchedRanks {
  const jobId = opts.jobId ?? `local-${process.pid}-${randomBytes(4).toString('hex')}`
  const key = newRanksKey()
  const processes: ChildProcess[] = []
  const exits: Promise<RankExit>[] = []
  for (let rank = 0; rank < opts.ranks; rank++) {
    const fence = opts.fences && opts.fences.fences[rank]
    const start = fence ? fencedCommand(fence, opts.fences!.route, opts.command, opts.args) : { command: opts.command, args: opts.args, env: {} }
    const child = spawn(start.command, start.args, {
      env: {
        ...process.env,
        ...opts.env,
        ...start.env,
        SLURM_PROCID: String(rank),
        SLURM_LOCALID: String(rank),
        SLURM_NTASKS: String(opts.ranks),
        SLURM_JOB_ID: jobId,
        [JOB_DIR_VARIABLE]: opts.folder,
        [RANKS_KEY_VARIABLE]: key,
        ...(opts.tether && { [TETHER_VARIABLE]: '1' }),
      },
      stdio: [opts.tether ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    })
    processes.push(child)
    let stdout = ''
    let stderr = ''
    child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t))
    child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t))
    exits.push(
      new Promise((resolve) => {
        child.on('error', (e) => resolve({ rank, code: null, signal: null, stdout, stderr: stderr + `cannot start ${opts.command}: ${e.message}\n` }))
        child.on('close', (code, signal) => resolve({ rank, code, signal, stdout, stderr }))
      }),
    )
  }
  return { jobId, processes, exited: Promise.all(exits) }
}
