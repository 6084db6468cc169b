// What rank 0 reports once the ranks are done: the times each rank sent it, the f64 reference of a
// gpu run, and the results shaped as a run on one machine gives them (run-landslide.ts).
import type { LandslideParams } from '../../../shared/workloads/landslide'
import { debrisVolume, gpuArithmetic, type LandslideResult, type LandslideRun, type LandslideSeries, runKey } from '../../../shared/workloads/landslide/types'
import type { JobContext } from '../../engine'
import { type HalosBy } from '../../ranks/neighbour-halos'
import { gridDeviation, snapshot, thicknessMaps, type Snapshot, appendSample } from './grid-stats'
import { reliefMap } from './hillshade'
import { gridSummary, readLandslideInput, type LandslideInput } from './inputs'
import { referenceMd5 } from './reference-format'
import { sampleEvery, type GivenToJob } from './run-landslide'
import { ThreadSimulation, type InitialState } from './simulation'
import { MAX_THICKNESS_MAPS } from '../../../shared/workloads/landslide/types'
import type { RankPhases } from '../../../shared/workloads/landslide/types'
import type { Plan } from './rank-plan'

/** What each rank reports to rank 0 at the end. */
export interface RankTimes {
  exchange_ms: number
  ms: number
  phases: RankPhases
  /** A gpu rank's GPU as requested, as observed, and how it was observed (rank-gpu.ts). */
  gpu_requested?: string
  gpu_observed?: string
  observed_by?: string
  /** How its halos travelled (neighbour-halos.ts). */
  halos?: HalosBy
}


/**
 * Rank 0 of a gpu run: the f64 grid after the steps (the caller's, or an `active` run of the whole
 * grid here), with the series and maps sampled from it as a job on one machine samples its reference;
 * `progress` hears the fraction of its steps done.
 */
export async function gpuReference(
  params: LandslideParams,
  input: LandslideInput,
  state: InitialState,
  samples: { series: LandslideSeries; snapshots: Snapshot[] },
  given: GivenToJob,
  ctx: Pick<JobContext, 'signal'>,
  progress: (fraction: number) => void,
): Promise<Float64Array> {
  const { rows, cols } = input
  const add = (step: number, grid: Float64Array) => {
    appendSample(samples.series, step, grid, rows, cols, input.walls)
    samples.snapshots.push(snapshot(step, grid, rows, cols))
  }
  if (given.reference) {
    add(0, input.h)
    add(params.steps, given.reference)
    return given.reference
  }
  const every = sampleEvery(params.steps, params.frames)
  const sim = new ThreadSimulation(state, true)
  add(0, await sim.thickness())
  while (sim.done < params.steps) {
    const next = Math.min(params.steps, (Math.floor(sim.done / every) + 1) * every)
    await sim.advance(next - sim.done, ctx.signal)
    add(sim.done, await sim.thickness())
    progress(sim.done / Math.max(1, params.steps))
  }
  return (await sim.thickness()).slice()
}

/** Rank 0's results from the final grid and the samples, shaped as runLandslideJob's. */
export function finishRanks(
  params: LandslideParams,
  input: Awaited<ReturnType<typeof readLandslideInput>>,
  state: InitialState,
  p: Plan,
  grid: Float64Array,
  series: LandslideSeries,
  snapshots: Snapshot[],
  every: number,
  times: RankTimes[],
  ms: number,
  /** A gpu run: the f64 reference grid (series and snapshots are its; absent without one), and what the GPU run reports. */
  gpu?: { grid?: Float64Array; run: Partial<LandslideRun> },
): LandslideResult {
  const { rows, cols } = input
  const md5 = referenceMd5(grid, rows, cols)
  const referenceGrid = gpu?.grid ?? grid
  const refMd5 = gpu?.grid ? referenceMd5(referenceGrid, rows, cols) : md5
  let massStart = 0
  for (let k = 0; k < input.h.length; k++) massStart += input.h[k]
  let massEnd = 0
  for (let k = 0; k < grid.length; k++) massEnd += grid[k]
  let refMassEnd = 0
  for (let k = 0; k < referenceGrid.length; k++) refMassEnd += referenceGrid[k]
  const arithmetic = p.backend === 'gpu' ? gpuArithmetic(params.precision) : 'f64'
  const stride = Math.max(1, Math.ceil((snapshots.length - 1) / (MAX_THICKNESS_MAPS - 1)))
  const kept = snapshots.filter((_, i) => i % stride === 0 || i === snapshots.length - 1)
  const maps = thicknessMaps(kept, rows, cols)
  const hillshade = maps[0] && reliefMap(state.z, rows, cols, input.walls, input.header.cellsize, maps[0])
  const size = p.placement.size
  return {
    grid: gridSummary(input),
    steps: params.steps,
    reference: {
      backend: p.backend === 'gpu' ? 'active' : p.backend,
      md5: refMd5,
      mass_start: massStart,
      mass_end: refMassEnd,
      volume_start: debrisVolume(massStart, input.header.cellsize),
      volume_end: debrisVolume(refMassEnd, input.header.cellsize),
    },
    runs: {
      [runKey(p.backend, p.variant)]: {
        backend: p.backend,
        ...(p.variant && { variant: p.variant }),
        precision: arithmetic,
        ...(size > 1 && { ranks: size, exchange_every: p.every }),
        ...gpu?.run,
        ms,
        ms_min: ms,
        ms_max: ms,
        ms_per_step: params.steps > 0 ? ms / params.steps : 0,
        // f32 grids too: comparing two gpu runs' md5 tells whether the split changed any bit.
        md5,
        mass_end: massEnd,
        volume_end: debrisVolume(massEnd, input.header.cellsize),
        ...(gpu?.grid && { deviation: gridDeviation(grid, gpu.grid) }),
      },
    },
    series,
    maps,
    sampling: { every, maps_every: every * stride },
    ...(hillshade && { hillshade }),
    skipped: [],
    ...(size > 1 && { ranks: { size, exchange_every: p.every, bands: p.bands.map((b, rank) => ({ rank, ...b, exchange_ms: times[rank].exchange_ms, ms: times[rank].ms, phases: times[rank].phases, ...(times[rank].halos && { halos: times[rank].halos }) })) } }),
  }
}
