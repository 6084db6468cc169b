// What a cluster run asks of Slurm (`--partition`, `--time`, `--nodes`, `--ntasks`, …), checked
// before anything is written or submitted: each bad value is refused with its flag named.
import { ApiError } from '../../shared/errors'

export interface SlurmRequest {
  partition?: string
  /** As Slurm writes it: minutes, m:s, h:m:s, d-h, d-h:m, d-h:m:s, or UNLIMITED. */
  time?: string
  nodes?: number
  /** Ranks of each task: more than one starts the task's command under `srun`. */
  ntasks?: number
  cpusPerTask?: number
  gpusPerTask?: number
  /** The most array tasks running at once (`%K`). */
  arrayParallelism?: number
  /** Anything else, each one `#SBATCH` argument, e.g. `--mem=8G`. */
  sbatchArgs: string[]
}

const TIME = /^(\d+-\d+(:\d+(:\d+)?)?|\d+(:\d+(:\d+)?)?|UNLIMITED|INFINITE)$/i

/** `--time` in one of the forms sbatch accepts, or an error saying which those are. */
export function checkTime(text: string): string {
  if (!TIME.test(text.trim())) throw new ApiError('invalid-argument', `--time must be minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds (e.g. 30, 2:00:00, 1-12), got "${text}"`)
  return text.trim()
}

/** A whole number of at least 1 for a Slurm count option. */
export function checkCount(value: unknown, flag: string, max = 1_000_000): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (String(value).trim() === '' || !Number.isInteger(n) || n < 1 || n > max) throw new ApiError('invalid-argument', `--${flag} must be a whole number from 1 to ${max}, got "${String(value)}"`)
  return n
}

/** A partition name as Slurm takes it (whether it exists is sbatch's to say). */
export function checkPartition(value: string): string {
  if (!/^[\w.,-]+$/.test(value)) throw new ApiError('invalid-argument', `--partition must be a partition name (letters, digits, ., _, -; several apart by commas), got "${value}"`)
  return value
}

/** The request's lines for a job script, without the `#SBATCH ` prefix. */
export function sbatchLines(req: SlurmRequest): string[] {
  return [
    ...(req.partition ? [`--partition=${req.partition}`] : []),
    ...(req.time ? [`--time=${req.time}`] : []),
    ...(req.nodes ? [`--nodes=${req.nodes}`] : []),
    ...(req.ntasks ? [`--ntasks=${req.ntasks}`] : []),
    ...(req.cpusPerTask ? [`--cpus-per-task=${req.cpusPerTask}`] : []),
    ...(req.gpusPerTask ? [`--gpus-per-task=${req.gpusPerTask}`] : []),
    ...req.sbatchArgs,
  ]
}
