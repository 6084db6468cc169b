// One interface over every statistics backend, CPU or GPU.
import type { BackendColumnStats, Precision, StatsBackend } from '../../../shared/workloads/stats/types'
import { createCpuStatsEngine, type PreparedColumn } from './cpu-engine'
import { createGpuStatsEngine } from './gpu/gpu-engine'

export interface StatsEngine {
  /** Makes a column ready (copies it to shared, wasm or GPU memory where the backend needs it). */
  prepare(values: Float64Array, precision: Precision): PreparedColumn | Promise<PreparedColumn>
  /** Statistics of the column's first `length` values (default all). */
  compute(column: PreparedColumn, length?: number): Promise<BackendColumnStats>
  release(column: PreparedColumn): void
  dispose(): Promise<void>
}

export async function createStatsEngine(backend: StatsBackend, opts: { signal?: AbortSignal }): Promise<StatsEngine> {
  if (backend === 'gpu') return createGpuStatsEngine(opts)
  return createCpuStatsEngine(backend, opts)
}
