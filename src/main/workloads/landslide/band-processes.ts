// `--gpu-bands N`: the gpu backend's grid in N row bands, each a process of its own, run as the
// landslide ranks are (run-ranks.ts through local-ranks.ts: a band per rank, fenced onto a GPU of
// its own where a fence can give it one, halos through shared memory between bands of this host).
// One process opening several GPUs of one model gets one of them several times (Dawn names them
// alike), so a band per process is how each band gets a GPU. The bands read the grids from their
// files (tiled as the caller tiled them) and rank 0 hands back the final grid through a file in a
// private folder of this process; the results report where each band was seen computing.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import type { GpuVariant, LandslidePrecision, LandslideRun } from '../../../shared/workloads/landslide/types'
import { readRecordFile } from '../../io/record-file'
import { rankTaskArgs, runLocalRanks } from './local-ranks'
import type { Tiling } from './tiled-grid'

/** How band processes rebuild the caller's grid: its files, tiled as the caller tiled them. */
export interface BandRecipe {
  files: string[]
  tile?: Tiling
}

export interface BandProcessesRun {
  recipe: BandRecipe
  bands: number
  steps: number
  variant: GpuVariant
  precision: LandslidePrecision
  /** Untimed GPU steps (ms) in each band before the timed ones. */
  warmup: number
  exchangeEvery?: number
  rows: number
  cols: number
  signal?: AbortSignal
}

/** What a run in band processes reports, as a run on one device would, plus the bands. */
export type BandsRun = Pick<LandslideRun, 'ranks' | 'exchange_every' | 'steps_per_submit' | 'passes_per_step' | 'gpus_requested' | 'gpus_observed' | 'gpus_observed_by' | 'gpus_shared' | 'gpus_note'>

/** One run: rank 0's time for the steps, the final grid, and what the bands report. */
export async function runBandProcesses(o: BandProcessesRun): Promise<{ ms: number; grid: Float64Array; run: BandsRun }> {
  const folder = await mkdtemp(join(tmpdir(), 'paralab-gpu-bands-'))
  try {
    const gridOut = join(folder, 'grid.f64')
    const args = rankTaskArgs({
      files: o.recipe.files,
      ...(o.recipe.tile && { tile: o.recipe.tile }),
      steps: o.steps,
      backend: 'gpu',
      variant: o.variant,
      precision: o.precision,
      warmup: o.warmup,
      ...(o.exchangeEvery !== undefined && { exchangeEvery: o.exchangeEvery }),
      gridOut,
    })
    const result = await runLocalRanks({ ranks: o.bands, args, folder, gpu: true, part: 'band', what: `gpu in ${o.bands} band processes`, signal: o.signal })
    const run = Object.values(result.runs)[0]
    if (!run) throw new ApiError('internal', `gpu in ${o.bands} band processes: rank 0 reported no run`)
    // Written by rank 0 into this process's private folder: exactly the grid's cells.
    const bytes = o.rows * o.cols * 8
    const data = await readRecordFile(gridOut, { maxBytes: bytes })
    if (data.byteLength !== bytes) throw new ApiError('internal', `gpu in ${o.bands} band processes: rank 0 wrote ${data.byteLength} bytes of grid, not ${bytes}`)
    const grid = new Float64Array(bytes / 8)
    new Uint8Array(grid.buffer).set(data)
    const { ranks, exchange_every, steps_per_submit, passes_per_step, gpus_requested, gpus_observed, gpus_observed_by, gpus_shared, gpus_note } = run
    return {
      ms: run.ms,
      grid,
      run: { ranks, exchange_every, steps_per_submit, passes_per_step, gpus_requested, gpus_observed, gpus_observed_by, ...(gpus_shared && { gpus_shared }), ...(gpus_note && { gpus_note }) },
    }
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}
