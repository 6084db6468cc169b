// The reference run's final thickness for files made after the job (the dashboard's .asc and .npy
// downloads, the full-resolution frame): a job's results keep no full grid, so the newest job's is
// kept here, in the backend, and any other run's is simulated again from its inputs (f64 on the
// CPU is deterministic: the md5 the run reported is checked).
import { availableParallelism } from 'node:os'
import { ApiError } from '../../../shared/errors'
import type { LandslideResult } from '../../../shared/workloads/landslide/types'
import { readLandslideInput, type LandslideInput } from './inputs'
import { tileInput } from './tiled-grid'
import { referenceMd5 } from './reference-format'
import { initialState } from './simulation'
import { WorkersSimulation } from './workers-simulation'

export interface FinalGrid {
  input: LandslideInput
  /** Thickness after the run's steps, row-major. */
  h: Float64Array
}

/** The grid a run ended with, identified by its inputs as named, its steps and its md5. */
interface Kept extends FinalGrid {
  steps: number
  md5: string
}

let kept: Kept | null = null

/** Keeps the newest job's final reference grid in place of the last one. */
export function keepFinalGrid(input: LandslideInput, steps: number, md5: string, h: Float64Array): void {
  kept = { input, steps, md5, h }
}

const sameFiles = (a: LandslideInput['files'], b: LandslideInput['files']) => a.dem === b.dem && a.source === b.source && a.header === b.header
const sameTile = (a: LandslideInput['tile'], b: LandslideResult['grid']['tile']) => (a?.rows ?? 1) === (b?.rows ?? 1) && (a?.cols ?? 1) === (b?.cols ?? 1)

/** The kept grid when it is this run's, without simulating. */
export function keptFinalGrid(r: LandslideResult): FinalGrid | null {
  return kept && sameFiles(kept.input.files, r.grid.files) && sameTile(kept.input.tile, r.grid.tile) && kept.steps === r.steps && kept.md5 === r.reference.md5 ? kept : null
}

/**
 * The final grid of run `r`: kept, or simulated again from its inputs (read through `input`, which
 * checks each path as a job's reads are checked) and checked against the md5 the run reported.
 */
export async function finalGrid(r: LandslideResult, input: (path: string) => Promise<string>, signal?: AbortSignal): Promise<FinalGrid> {
  const found = keptFinalGrid(r)
  if (found) return found
  const f = r.grid.files
  const shown = [...(f.header ? [f.header] : []), f.dem, f.source]
  const real: string[] = []
  for (const path of shown) real.push(await input(path))
  const read = await readLandslideInput(shown, real, signal)
  const t = r.grid.tile
  const grids = t ? tileInput(read, { rows: Number(t.rows), cols: Number(t.cols) }) : read
  const sim = new WorkersSimulation(initialState(grids), availableParallelism(), true)
  let h: Float64Array
  try {
    await sim.advance(r.steps, signal)
    h = (await sim.thickness()).slice()
  } finally {
    await sim.dispose()
  }
  const md5 = referenceMd5(h, grids.rows, grids.cols)
  if (md5 !== r.reference.md5)
    throw new ApiError('io', `the inputs no longer give this run's grid (md5 ${md5}, the run's ${r.reference.md5}): were ${shown.join(', ')} changed since?`)
  keepFinalGrid(grids, r.steps, md5, h)
  return { input: grids, h }
}
