// The steps of a correlation job and what each costs, for its progress bar (src/shared/progress-plan.ts):
// costs in nanoseconds of one core, measured on a 2048 × 512 walk (a busy 2-core machine; only their
// ratios matter). The cross products grow as m²n, ranking and keeping the matrix as m², so at 16 384
// series of 512 samples ranking weighs as much as the cross products, as it takes as long.
import { availableParallelism } from 'node:os'
import type { PlanStep } from '../../../shared/progress-plan'
import { COMPILE_COST_NS } from '../../gpu/compile'
import type { CorrelationBackend, InputFormat } from '../../../shared/workloads/correlation/types'

/** Reading, per byte of the file: text is parsed, binary copied. */
const LOAD_NS_PER_BYTE: Record<InputFormat, number> = { csv: 100, npy: 7, parquet: 25, arrow: 10, hdf5: 25, netcdf: 15 }
/** One pair's multiply-add of one sample, per backend (a GPU's unknown ahead: as `simd`). */
const PAIR_SAMPLE_NS: Record<CorrelationBackend, number> = { serial: 1.5, simd: 0.4, workers: 1.5, 'workers-simd': 0.4, gpu: 0.4 }
/** Ranking (a median per series) and the heatmap, per cell of the matrix. */
const RANK_NS_PER_CELL = 90
/** Writing the matrix, per cell: .npy bytes, or CSV text. */
const KEEP_NS_PER_CELL = 20
const CSV_NS_PER_CELL = 150

export function loadCost(bytes: number, format: InputFormat | undefined): number {
  return bytes * LOAD_NS_PER_BYTE[format ?? 'csv']
}

/** One run of a backend's four stages on m series of n samples. */
export function runCost(backend: CorrelationBackend, m: number, n: number): number {
  const threads = backend === 'workers' || backend === 'workers-simd' ? availableParallelism() : 1
  return (PAIR_SAMPLE_NS[backend] * ((m * (m + 1)) / 2) * n) / threads
}

export interface StepsAfterLoading {
  m: number
  n: number
  /** The CPU backend that computes an f64 reference first, when no backend of the run does. */
  reference?: CorrelationBackend
  backends: readonly CorrelationBackend[]
  repeat: number
  sweep: { m: number; n: number }[]
  keep: boolean
  matrix?: 'npy' | 'csv'
}

/** Every step after loading, in the order the job takes them (a backend's runs, then its sweep's). */
export function stepsAfterLoading(s: StepsAfterLoading): PlanStep[] {
  const cells = s.m * s.m
  const out: PlanStep[] = []
  if (s.reference) out.push({ key: 'reference', cost: runCost(s.reference, s.m, s.n) })
  for (const b of s.backends) {
    if (b === 'gpu') out.push({ key: 'compile', cost: COMPILE_COST_NS })
    for (let r = 0; r < s.repeat; r++) out.push({ key: `run ${b}`, cost: runCost(b, s.m, s.n) })
    for (const size of s.sweep) for (let r = 0; r < s.repeat; r++) out.push({ key: `sweep ${b}`, cost: runCost(b, size.m, size.n) })
  }
  out.push({ key: 'ranking', cost: cells * RANK_NS_PER_CELL })
  if (s.keep) out.push({ key: 'keeping', cost: cells * KEEP_NS_PER_CELL })
  if (s.matrix) out.push({ key: 'writing', cost: cells * (s.matrix === 'csv' ? CSV_NS_PER_CELL : KEEP_NS_PER_CELL) })
  return out
}

/** A view of a run's series: a pair's overlay (next to nothing), or a zoom's cells, each a pair's r over n samples. */
export function viewStep(view: { zoomCells?: number; n: number }): PlanStep {
  return { key: 'view', cost: (view.zoomCells ?? 0) * view.n * PAIR_SAMPLE_NS.serial }
}
