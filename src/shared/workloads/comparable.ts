// What a workload tells Compare about a finished job: each timed run with what it ran on, how much
// work one timing covers and what it computed, so that runs of other jobs can be lined up with it.
import type { Timing } from './envelope'

/** The work one timing covers, in the workload's unit: steps, relaxations, values, bytes. */
export interface Work {
  count: number
  /** Singular, e.g. `step`: figures read "per step". */
  unit: string
}

/** A result check: a figure every correct run of the same work agrees on (md5, checksum, CV) or its error (max |Δr|). */
export interface Check {
  name: string
  value: string
}

/**
 * The arithmetic of one timed run, for its point on a roofline (src/shared/workloads/backend-points.ts):
 * its floating-point operations (an integer workload's operations where it has none) and the bytes it
 * must move at least, its inputs read and its outputs written once.
 */
export interface RunCost {
  flop: number
  bytes: number
}

/** One timed run of a job, as Compare matches it with other jobs' runs by (input, backend, variant). */
export interface ComparableRun {
  /** The input it ran on, as the job was given it; '' when the workload reads none. */
  input: string
  backend: string
  /** The backend's variant (a GPU kernel, a blocking factor); '' when it has none. */
  variant: string
  timing: Timing
  work: Work
  checks: Check[]
  /** GPU: milliseconds its kernels took to compile, before its timed runs (never in `timing`). */
  compile_ms?: number
  /** What one timed run computed and moved, where the workload counts it. */
  cost?: RunCost
}

/** A check's number, short enough to read and long enough that a difference beyond rounding shows. */
export function checkValue(value: number | null | undefined, digits = 6): string {
  if (value === null || value === undefined) return '—'
  if (!Number.isFinite(value)) return String(value)
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(digits)))
}
