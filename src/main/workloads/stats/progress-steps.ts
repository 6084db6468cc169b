// The steps of a statistics job and what each costs, for its progress bar (src/shared/progress-plan.ts):
// costs in nanoseconds, measured on 2 M rows of three columns (a busy 2-core machine; only their
// ratios matter). Loading is per byte of the file; a backend's runs per value computed, between the
// integer counts' single pass (serial ~7 ns a value) and the radix passes of wide values (~60 ns).
// Before a file is loaded its rows are guessed from its size; once loaded, its steps are weighed again.
import type { PlanStep } from '../../../shared/progress-plan'
import type { Precision, StatsBackend } from '../../../shared/workloads/stats/types'
import { COMPILE_COST_NS } from '../../gpu/compile'
import { defaultStatsThreads } from './cpu-engine'

/** What a file's format costs to read, per byte: text is parsed on the loader's threads, binary columns copied. */
const LOAD_NS_PER_BYTE = { csv: 12, parquet: 5, arrow: 3, hdf5: 5, netcdf: 5 } as const
export type LoadFormat = keyof typeof LOAD_NS_PER_BYTE
/** Bytes of a row, to guess a file's rows before it is read: the accelerometer's CSV, its Parquet. */
const ROW_BYTES: Record<LoadFormat, number> = { csv: 43, parquet: 32, arrow: 32, hdf5: 24, netcdf: 24 }
/** One value's share of a run on one thread (a GPU's unknown ahead: a fast one). */
const VALUE_NS: Record<StatsBackend, number> = { serial: 20, simd: 6, workers: 20, 'workers-simd': 6, gpu: 1 }

export function loadCost(bytes: number, format: LoadFormat): number {
  return bytes * LOAD_NS_PER_BYTE[format]
}

/** A file's rows as its size suggests, before reading it. */
export function guessRows(bytes: number, format: LoadFormat): number {
  return Math.max(1, Math.round(bytes / ROW_BYTES[format]))
}

/** Values a backend computes: every repeat on the prefixes n/K, 2n/K, …, n of every column. */
export function valuesComputed(rows: number, columns: number, batches: number, repeat: number): number {
  return (columns * repeat * rows * (batches + 1)) / 2
}

/** One value's cost on a backend, its threads counted. */
export function valueCost(backend: StatsBackend, threads = defaultStatsThreads()): number {
  return VALUE_NS[backend] / (backend === 'workers' || backend === 'workers-simd' ? threads : 1)
}

export interface FileSteps {
  rows: number
  columns: number
  backends: readonly StatsBackend[]
  precision: Precision
  /** The CPU backend of the f64 reference that f32 runs are compared with. */
  reference: StatsBackend
  batches: number
  repeat: number
}

/** A file's steps after its loading, in the order the job takes them. */
export function stepsAfterLoading(s: FileSteps): PlanStep[] {
  const out: PlanStep[] = []
  if (s.precision !== 'f64') out.push({ key: 'reference', cost: valuesComputed(s.rows, s.columns, 1, 1) * valueCost(s.reference) })
  for (const b of s.backends) {
    if (b === 'gpu') out.push({ key: 'compile', cost: COMPILE_COST_NS })
    out.push({ key: `run ${b}`, cost: valuesComputed(s.rows, s.columns, s.batches, s.repeat) * valueCost(b) })
  }
  return out
}

/** A file's steps, loading first: its rows guessed from its size until it is read. */
export function fileSteps(bytes: number, format: LoadFormat, s: Omit<FileSteps, 'rows'> & { rows?: number }): PlanStep[] {
  return [{ key: 'loading', cost: loadCost(bytes, format) }, ...stepsAfterLoading({ ...s, rows: s.rows ?? guessRows(bytes, format) })]
}
