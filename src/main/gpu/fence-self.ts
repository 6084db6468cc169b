// A Slurm task that must be fenced onto its GPU (fence.ts taskFence: Slurm granted it one, but no
// devices cgroup hides the others) runs the same command again inside the fence and waits for it:
// the task's process, the one srun watches, stays as its parent, passes on the signals Slurm sends
// (a cancel, a time limit's warning) and ends with its exit status.
import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { fencedCommand, taskFence, type TaskFence } from './fence'

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGUSR1', 'SIGUSR2'] as const

/** This command again, fenced: its exit code (128 + n for a signal), once it has ended. */
export function rerunFenced(f: Extract<TaskFence, { ok: true }>, argv: string[] = process.argv, execArgv: string[] = process.execArgv): Promise<number> {
  const start = fencedCommand(f.fence, f.route, process.execPath, [...execArgv, ...argv.slice(1)])
  const child = spawn(start.command, start.args, { env: { ...process.env, ...start.env }, stdio: 'inherit' })
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  for (const s of FORWARDED) process.on(s, forward)
  return new Promise((resolve) => {
    const done = (code: number) => {
      for (const s of FORWARDED) process.off(s, forward)
      resolve(code)
    }
    child.on('error', (e) => {
      process.stderr.write(`paralab: cannot start the fenced task (${start.command}): ${e.message}\n`)
      done(126)
    })
    child.on('close', (code, signal) => done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)))
  })
}

/**
 * For a task of a cluster job: undefined where it goes on in this process (no fence needed, or
 * none possible: said on stderr), else the exit code of its fenced run.
 */
export async function fenceSlurmTask(): Promise<number | undefined> {
  const f = taskFence()
  if (!f.ok) {
    if (f.why) process.stderr.write(`paralab: ${f.why}\n`)
    return undefined
  }
  process.stderr.write(`paralab: ${f.note}\n`)
  return rerunFenced(f)
}
