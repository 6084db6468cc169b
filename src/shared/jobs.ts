// Long operations are jobs: an id, progress events, cancellation, a result envelope or an error.
import type { ApiErrorShape } from './errors'
import type { ResultEnvelope } from './workloads/envelope'
import type { WorkloadId } from './workloads'

export interface JobProgress {
  /** What the job is doing now, beginning with one of its workload's phases, e.g. "loading acc.csv". */
  phase: string
  /** 0…1 over the whole job, each phase weighted by what it costs. */
  fraction: number
  /** 0…1 of the phase under way, where the job reports it (src/shared/progress-plan.ts). */
  phaseFraction?: number
  /** Current throughput, e.g. { value: 812, unit: 'MB/s' }. */
  throughput?: { value: number; unit: string }
}

/** A job's fraction as the whole percent shown: rounded down, so that only a job done reads 100 %. */
export function progressPercent(fraction: number): number {
  // The nudge keeps 0.29 (28.999… × 100) at 29.
  return Math.floor(Math.min(1, Math.max(0, fraction)) * 100 + 1e-9)
}

/** A phase without its changing figures: "loading a.csv · 1.2 M rows" and "… 3.4 M rows" are one phase. */
export function phaseKey(phase: string): string {
  return phase.replace(/\d[\d.,]*/g, '#')
}

export type JobEvent =
  | ({ type: 'progress'; jobId: string; workload: WorkloadId } & JobProgress)
  | { type: 'done'; jobId: string; workload: WorkloadId; envelope: ResultEnvelope }
  /** `partial`: a cancelled job's results so far, when it kept some. */
  | { type: 'failed'; jobId: string; workload: WorkloadId; error: ApiErrorShape; partial?: ResultEnvelope }
