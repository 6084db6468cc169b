// The steps of a landslide job and what each costs, for its progress bar (src/shared/progress-plan.ts):
// costs in nanoseconds, measured on the Tessina grid (610 × 496) over 400 steps (a busy 2-core
// machine; only their ratios matter). A run grows as its steps times the grid's cells, `active`
// backends at the share of the grid the debris reaches (unknown ahead: a quarter); reading as the
// files' bytes, the checks and maps as the cells. Before the grids are read their cells are guessed
// from their size; once read, the job is weighed again.
import { stat } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import type { PlanStep } from '../../../shared/progress-plan'
import { type GpuVariant, type LandslideBackend, type RunArithmetic, runKey } from '../../../shared/workloads/landslide/types'
import { COMPILE_COST_NS } from '../../gpu/compile'

/** Reading the grids, per byte: ESRI ASCII text is parsed, GeoTIFF strips decoded. */
const READ_NS_PER_BYTE = { text: 100, tiff: 10 } as const
/** Bytes a cell takes in the two grids' text, to guess the cells before reading them. */
const TEXT_BYTES_PER_CELL = 5
/** The initial state (the DEM's walls, the source carved out), per cell. */
const PREPARE_NS_PER_CELL = 200
/** One cell's step on one thread (a GPU's unknown ahead: a fast one; double-float four times f32). */
const CELL_STEP_NS: Record<LandslideBackend, number> = { serial: 20, active: 5, workers: 20, 'workers-active': 5, gpu: 0.5 }
/** The workers' threads exchange halo rows every step. */
const WORKERS_OVERHEAD = 1.5
/** A sample of the series and a frame of the maps, per cell. */
const SAMPLE_NS_PER_CELL = 10
/** A run's check: the grid printed as the reference program prints it (its md5) and its mass, per cell. */
const CHECK_NS_PER_CELL = 150
/** The maps, the relief and the final grid kept for downloads, per cell. */
const MAPS_NS_PER_CELL = 50
const KEEP_NS_PER_CELL = 300

/** What reading the grids' files costs, and the grid's cells as their size suggests, before reading them. */
export async function weighGridFiles(files: readonly string[], shown: readonly string[]): Promise<{ cost: number; cells: number }> {
  let bytes = 0
  for (const f of files) bytes += (await stat(f)).size
  const tiff = shown.some((name) => /\.tiff?$/i.test(name))
  return { cost: bytes * READ_NS_PER_BYTE[tiff ? 'tiff' : 'text'], cells: Math.max(1, Math.round(bytes / TEXT_BYTES_PER_CELL)) }
}

/** One step of a backend over `cells`, its threads (the workers' ranks) counted. */
export function cellStepCost(backend: LandslideBackend, arithmetic: RunArithmetic, threads: number): number {
  const parallel = backend === 'workers' || backend === 'workers-active' ? Math.max(1, Math.min(threads, availableParallelism())) / WORKERS_OVERHEAD : 1
  return (CELL_STEP_NS[backend] * (backend === 'gpu' && arithmetic === 'double-float' ? 4 : 1)) / parallel
}

export interface JobSteps {
  cells: number
  steps: number
  repeat: number
  /**
   * In the order the job takes them, the reference's first; each is its key in the results (`gpu/fused`)
   * in the plan's steps: `compile K` and `warm-up K` (a GPU's on this process), `run K`, `check K`.
   */
  runs: readonly { backend: LandslideBackend; variant?: GpuVariant }[]
  /** Only GPU kernels: an `active` run first gives the f64 reference they are compared with. */
  activeFirst: boolean
  /** The gpu backend's bands: more than one runs as processes, which compile and warm up their own devices. */
  bands: number
  /** Samples the first run records (series and frames). */
  samples: number
  arithmetic: RunArithmetic
  /** The workers' ranks. */
  threads: number
  warmupMs: number
  keep: boolean
}

/** Every step after the grids are read, in the order the job takes them. */
export function stepsAfterReading(s: JobSteps): PlanStep[] {
  const out: PlanStep[] = [{ key: 'preparing', cost: s.cells * PREPARE_NS_PER_CELL }]
  const runs = s.activeFirst ? [{ backend: 'active' as const }, ...s.runs] : s.runs
  for (const [i, run] of runs.entries()) {
    const key = runKey(run.backend, run.variant)
    const compiles = run.backend === 'gpu' && s.bands <= 1
    if (compiles) out.push({ key: `compile ${key}`, cost: COMPILE_COST_NS })
    if (compiles && s.warmupMs > 0) out.push({ key: `warm-up ${key}`, cost: s.warmupMs * 1e6 })
    const once = s.steps * s.cells * cellStepCost(run.backend, run.backend === 'gpu' ? s.arithmetic : 'f64', s.threads)
    for (let r = 0; r < s.repeat; r++) out.push({ key: `run ${key}`, cost: once + (i === 0 && r === 0 ? s.samples * s.cells * SAMPLE_NS_PER_CELL : 0) })
    out.push({ key: `check ${key}`, cost: s.cells * CHECK_NS_PER_CELL })
  }
  out.push({ key: 'maps', cost: s.cells * MAPS_NS_PER_CELL })
  if (s.keep) out.push({ key: 'keeping', cost: s.cells * KEEP_NS_PER_CELL })
  return out
}

export interface RankSteps {
  /** The grid's cells, and those of this rank's band. */
  cells: number
  bandCells: number
  /** Steps this run computes (from the checkpoint it resumes from). */
  steps: number
  backend: LandslideBackend
  arithmetic: RunArithmetic
  warmupMs: number
  /** Rank 0 of a GPU run: the f64 reference (`active`) over the whole grid, and its samples. */
  reference?: { steps: number; samples: number }
  /** Rank 0: the run's check and maps. */
  finish: boolean
}

/** A rank's steps after the grids are read (run-ranks.ts). */
export function rankStepsAfterReading(s: RankSteps): PlanStep[] {
  const out: PlanStep[] = [{ key: 'preparing', cost: s.cells * PREPARE_NS_PER_CELL }]
  if (s.backend === 'gpu') out.push({ key: 'opening', cost: COMPILE_COST_NS })
  if (s.backend === 'gpu' && s.warmupMs > 0) out.push({ key: 'warm-up', cost: s.warmupMs * 1e6 })
  out.push({ key: 'simulating', cost: s.steps * s.bandCells * cellStepCost(s.backend, s.arithmetic, 1) })
  if (s.reference) out.push({ key: 'reference', cost: s.reference.steps * s.cells * cellStepCost('active', 'f64', 1) + s.reference.samples * s.cells * SAMPLE_NS_PER_CELL })
  if (s.finish) out.push({ key: 'finishing', cost: s.cells * (CHECK_NS_PER_CELL + MAPS_NS_PER_CELL) })
  return out
}
