// Slurm's client commands (sbatch, squeue, scontrol, scancel), each bounded by a timeout: they
// retry for about 9 s when slurmctld is down, and a command must never hang on that.
import { execFile } from 'node:child_process'
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { ApiError } from '../../shared/errors'

/** Long enough for the client's own retries (~9 s) to end in its message rather than in ours. */
const TIMEOUT_MS = 20_000

export interface SlurmOutput {
  stdout: string
  stderr: string
}

/** Runs a Slurm client command, `input` on its stdin; a failure is an error carrying its own message (its stderr). */
export function slurm(command: string, args: string[], timeoutMs = TIMEOUT_MS, input?: string): Promise<SlurmOutput> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 * 2 ** 20, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return resolve({ stdout, stderr })
      const e = error as NodeJS.ErrnoException & { killed?: boolean; code?: unknown }
      if (e.code === 'ENOENT') return reject(new ApiError('invalid-argument', `${command} was not found on the PATH: Slurm's client commands (Debian: slurm-client) are needed to run on a cluster (or use --executor local)`))
      if (e.killed) return reject(new ApiError('io', `${command} ${args.join(' ')} did not answer within ${timeoutMs / 1000} s (is slurmctld running?)`))
      const said = stderr.trim().split('\n').filter(Boolean)
      reject(new ApiError('io', `${command} failed: ${said.length ? said.join('; ') : `exit ${String(e.code)}`}`))
    })
    // A command that exits before reading all of its input is reported by its exit, not by EPIPE.
    child.stdin?.on('error', () => undefined)
    child.stdin?.end(input ?? '')
  })
}

/** Whether `command` is on the PATH (for refusing `--slurm` before anything is written). */
export async function onPath(command: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean))
    if (await access(join(dir, command), constants.X_OK).then(() => true, () => false)) return true
  return false
}
