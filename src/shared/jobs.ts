// Long operations are jobs: an id, progress events, cancellation, a typed result or error.
import type { ApiErrorShape } from './api'
import type { BenchDeviceParams, DeviceBenchResult } from './device'
import type { StatsParams, StatsResult } from './workloads/stats/types'

export interface JobParams {
  'bench-device': BenchDeviceParams
  stats: StatsParams
}
export interface JobResults {
  'bench-device': DeviceBenchResult
  stats: StatsResult
}
export type JobKind = keyof JobParams
export const JOB_KINDS: readonly JobKind[] = ['bench-device', 'stats']

export interface JobProgress {
  /** What the job is doing now, e.g. "read bandwidth" or "parsing". */
  phase: string
  /** 0…1 over the whole job. */
  fraction: number
  /** Current throughput, e.g. { value: 812, unit: 'MB/s' }. */
  throughput?: { value: number; unit: string }
}

export type JobEvent =
  | ({ type: 'progress'; jobId: string; kind: JobKind } & JobProgress)
  | { type: 'done'; jobId: string; kind: JobKind; result: JobResults[JobKind] }
  | { type: 'failed'; jobId: string; kind: JobKind; error: ApiErrorShape }
