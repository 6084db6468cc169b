// One interface over every statistics backend, CPU or GPU.
import type { BackendColumnStats, Precision, StatsBackend } from '../../../shared/workloads/stats/types'
import { createCpuStatsEngine, type PreparedColumn } from './cpu-engine'
import type { Gpu } from '../../gpu/runtime'

export interface StatsEngine {
  /**
   * Whether a job should prepare every column before computing them together (the GPU: columns
   * fit in its memory, and computing them together saves round trips). CPU engines that copy a
   * column (to shared or wasm memory) are given one at a time, to hold one copy.
   */
  readonly columnsTogether: boolean
  /** Makes a column ready (copies it to shared, wasm or GPU memory where the backend needs it). */
  prepare(values: Float64Array, precision: Precision): PreparedColumn | Promise<PreparedColumn>
  /** Statistics of the column's first `length` values (default all). */
  compute(column: PreparedColumn, length?: number): Promise<BackendColumnStats>
  /**
   * Statistics of several columns (each one's first `lengths[i]` values, default all). The GPU
   * computes them together, sharing its submits and round trips; CPU engines one by one.
   * `progress` hears of the passes over them as they end, as a fraction of the whole.
   */
  computeMany(columns: readonly PreparedColumn[], lengths?: readonly number[], progress?: (fraction: number) => void): Promise<BackendColumnStats[]>
  release(column: PreparedColumn): void
  dispose(): Promise<void>
  /** GPU: compiles every kernel of `precision`, for the job to wait on before its timed runs. */
  compileKernels?(precision: Precision): Promise<void>
}

/** `gpu` is the device of the `gpu` backend (the job's, so that the envelope names it). */
export async function createStatsEngine(backend: StatsBackend, opts: { signal?: AbortSignal; gpu?: () => Promise<Gpu> }): Promise<StatsEngine> {
  // The GPU engine's code is loaded only by a job that runs it.
  if (backend === 'gpu') return (await import('./gpu/gpu-engine')).createGpuStatsEngine({ signal: opts.signal, gpu: await opts.gpu?.() })
  return createCpuStatsEngine(backend, opts)
}
