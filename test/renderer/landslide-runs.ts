// Landslide jobs with made-up runs, for comparing runs of different lengths.
import { timingOf, type ResultEnvelope } from '../../src/shared/workloads/envelope'
import type { LandslideResult, LandslideRun } from '../../src/shared/workloads/landslide/types'
import { envelopeOf } from './envelope'

/** A landslide run taking `ms` for all its steps. */
export function run(backend: LandslideRun['backend'], ms: number, md5?: string, variant?: LandslideRun['variant']): LandslideRun {
  return {
    backend,
    ...(variant && { variant }),
    precision: backend === 'gpu' ? 'f32' : 'f64',
    ms,
    ms_min: ms,
    ms_max: ms,
    ms_per_step: 0,
    ...(md5 && { md5 }),
    mass_end: ms,
    ...(backend === 'gpu' && { deviation: { max_abs: 1e-4, cells_over_1mm: 0, mass_error: 0 } }),
  }
}

/** A landslide job of `steps` steps on dem.asc and source.asc. */
export function landslide(steps: number, runs: Record<string, LandslideRun>): ResultEnvelope {
  const results = {
    grid: { rows: 4, cols: 4, cellsize: 1, xllcorner: 0, yllcorner: 0, nodata: null, walls: 0, files: { dem: 'dem.asc', source: 'source.asc' } },
    steps,
    reference: { backend: 'serial', md5: 'aa', mass_start: 1, mass_end: 1 },
    runs,
    series: { step: [], mass: [], flooded: [], max_thickness: [], active: [] },
    maps: [],
    skipped: [],
  } satisfies LandslideResult
  const timings = Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, timingOf([r.ms])]))
  return envelopeOf('landslide', { steps, repeat: 1 }, results, { timings })
}
