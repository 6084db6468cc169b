// Accelerometer statistics: per-column CV and MAD on several backends.
import type { ApiErrorShape } from '../../errors'

export const STATS_BACKENDS = ['serial', 'simd', 'workers', 'workers-simd', 'gpu'] as const
export type StatsBackend = (typeof STATS_BACKENDS)[number]

export const PRECISIONS = ['f64', 'f32'] as const
export type Precision = (typeof PRECISIONS)[number]

/** Exact f64 reference statistics of one column. */
export interface ColumnStats {
  /** Values used (non-missing). */
  n: number
  /** Empty cells skipped. */
  missing: number
  mean: number
  /** Population standard deviation. */
  std: number
  /** std / mean. */
  cv: number
  median: number
  /** median(|x − median|), unscaled. */
  mad: number
}

/** What one backend computed for one column. */
export interface BackendColumnStats {
  mean: number
  std: number
  cv: number
  median: number
  mad: number
}

/** How far an f32 result lies from the f64 reference. */
export interface Deviation {
  cv_rel: number
  median_abs: number
  mad_abs: number
}

export interface BackendRun {
  precision: Precision
  /** Median computation time over the repeats, data already loaded (and on the GPU for `gpu`). */
  compute_ms: number
  /** For `gpu`: host→device upload time, reported apart from compute: what remained after the load (the rest overlaps reading the file). */
  upload_ms?: number
  /** For `gpu`: milliseconds the job waited, before its timed runs, for its kernels to compile (beyond what overlapped the upload). */
  compile_ms?: number
  columns: Record<string, BackendColumnStats & { deviation?: Deviation }>
}

export interface BatchPoint {
  /** Rows in this prefix. */
  rows: number
  backends: Record<string, { compute_ms: number; columns: Record<string, { cv: number; mad: number; median: number }> }>
}

export interface StatsFileResult {
  path: string
  rows: number
  bytes: number
  load_ms: number
  columns: Record<string, ColumnStats>
  backends: Record<string, BackendRun>
  batches: BatchPoint[]
}


/** A file that could not be analysed, and why. */
export interface StatsFileFailure {
  path: string
  error: ApiErrorShape
}

export interface StatsResult {
  /** Files analysed. */
  files: StatsFileResult[]
  /** Files that could not be analysed (the run goes on past them unless failFast). */
  failed: StatsFileFailure[]
  /** Backends not run, with the reason (the GPU when no adapter exists and others were asked for). */
  skipped: { backend: StatsBackend; reason: string }[]
}

export const DEFAULT_STATS_COLUMNS = ['acc_x', 'acc_y', 'acc_z']
