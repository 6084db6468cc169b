// `--executor local`: the generated scripts run as local processes, for trying a job before a
// cluster is at hand. Each array task is the tasks' script run by bash with the variables Slurm
// would set, its output in the same log files; `srun` becomes a shell function that starts the
// ranks here; the merge script runs once every task has ended. What Slurm would record of each
// task (state, exit code) goes to tasks/<index>/state.json.
import { spawn } from 'node:child_process'
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { ApiError } from '../../shared/errors'
import { jobPaths, taskPaths, writeJson, type JobRecord } from './job-folder'

/** srun for local ranks: `--ntasks=R` copies of the command, each told its rank; fails when one fails. */
const LOCAL_SRUN = `() { local n=1; while [[ $1 == -* ]]; do case $1 in --ntasks=*) n=\${1#--ntasks=};; esac; shift; done
local pids=() i rc=0; for ((i = 0; i < n; i++)); do SLURM_PROCID=$i SLURM_NTASKS=$n SLURM_LOCALID=$i "$@" & pids+=($!); done
for i in "\${pids[@]}"; do wait "$i" || rc=$?; done; return $rc; }`

export interface LocalState {
  state: 'COMPLETED' | 'FAILED' | 'CANCELLED'
  exit_code: number
  signal: number
}

/**
 * A task's log, opened to append: never through a symlink, and refused at once when something
 * other than a regular file (a FIFO would block until a reader came) was put in its place.
 */
export async function openTaskLog(path: string): Promise<FileHandle> {
  const file = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644).catch((e: NodeJS.ErrnoException) => {
    throw new ApiError('io', e.code === 'ELOOP' ? `${path} is a symbolic link, not a log Paralab wrote` : `cannot open ${path}: ${e.message}`)
  })
  const s = await file.stat()
  if (!s.isFile()) {
    await file.close()
    throw new ApiError('io', `${path} is not a regular file, so it is no log Paralab wrote`)
  }
  return file
}

function runScript(script: string, env: NodeJS.ProcessEnv, stdout: string, stderr: string, signal: AbortSignal): Promise<LocalState> {
  return (async () => {
    const out = await openTaskLog(stdout)
    const err = await openTaskLog(stderr).catch(async (e) => {
      await out.close()
      throw e
    })
    try {
      return await new Promise<LocalState>((resolve, reject) => {
        const child = spawn('bash', [script], { env, stdio: ['ignore', out.fd, err.fd] })
        const cancel = () => child.kill('SIGTERM')
        signal.addEventListener('abort', cancel, { once: true })
        child.on('error', (e) => reject(new ApiError('io', `cannot run ${script} with bash: ${e.message}`)))
        child.on('close', (code, sig) => {
          signal.removeEventListener('abort', cancel)
          if (sig) resolve({ state: 'CANCELLED', exit_code: 0, signal: 15 })
          else resolve({ state: code === 0 ? 'COMPLETED' : 'FAILED', exit_code: code ?? 1, signal: 0 })
        })
      })
    } finally {
      await out.close()
      await err.close()
    }
  })()
}

/** Runs every task (at most `parallelism` at once, default one per core), then the merge script. */
export async function runLocally(dir: string, record: JobRecord, parallelism: number | undefined, signal: AbortSignal, onTaskEnd?: (index: number, s: LocalState) => void): Promise<void> {
  const paths = jobPaths(dir)
  // A job id of its own, so that the ranks of one run never meet those of another; no node name,
  // so that ranks meet on this host's loopback address rather than asking Slurm for a node.
  const id = `local-${process.pid}-${Date.now()}`
  const base: NodeJS.ProcessEnv = { ...process.env, SLURM_JOB_ID: id, SLURM_ARRAY_JOB_ID: id, 'BASH_FUNC_srun%%': LOCAL_SRUN }
  delete base.SLURMD_NODENAME
  const queue = [...record.tasks]
  const worker = async () => {
    for (let task = queue.shift(); task && !signal.aborted; task = queue.shift()) {
      const t = taskPaths(paths.task(task.index))
      const env = { ...base, ...(record.tasks.length > 1 && { SLURM_ARRAY_TASK_ID: String(task.index) }) }
      const state = await runScript(paths.script, env, t.stdout, t.stderr, signal)
      await writeJson(t.state, state)
      onTaskEnd?.(task.index, state)
    }
  }
  const lanes = Math.max(1, Math.min(parallelism ?? availableParallelism(), record.tasks.length))
  await Promise.all(Array.from({ length: lanes }, worker))
  if (signal.aborted) throw new ApiError('cancelled', 'cancelled')
  const merge = await runScript(paths.mergeScript, base, paths.mergeLog, paths.mergeLog, signal)
  if (merge.state === 'CANCELLED') throw new ApiError('cancelled', 'cancelled')
}
