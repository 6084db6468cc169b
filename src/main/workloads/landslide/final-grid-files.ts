// `paralab landslide --output FILE --asc FILE --tif FILE`: the reference run's final thickness as the
// study's program writes it (its md5 is the study's check), as an ESRI ASCII grid and as a GeoTIFF.
// The job keeps its reference run's final grid in this process (final-grid.ts), and the files are
// written from it; a run whose grid this process does not hold (a run in ranks) is simulated once
// more here: deterministic f64, so the same md5 as the job reported, which is checked.
import { availableParallelism } from 'node:os'
import { ApiError } from '../../../shared/errors'
import type { LandslideResult } from '../../../shared/workloads/landslide/types'
import type { EngineCli } from '../../engine'
import { prjPathBeside } from '../../../shared/prj'
import { checkTarget } from './check-target'
import { keptFinalGrid } from './final-grid'
import { type GridFileTargets, writeGridFiles } from './write-grid-files'

export const finalGridFlags: NonNullable<EngineCli<LandslideResult>['fileFlags']> = {
  flags: [
    { flag: 'output', help: 'write the reference run\'s final thickness in the reference program\'s format (its md5 is the study\'s check)' },
    { flag: 'asc', help: 'write the reference run\'s final thickness as an ESRI ASCII grid with the DEM\'s header (dry cells 0, walls NODATA_value -9999), and the DEM\'s CRS as a .prj beside it where Paralab can write it (UTM zones on WGS 84, ETRS89, NAD83)' },
    { flag: 'tif', help: 'write the reference run\'s final thickness as a float64 GeoTIFF with the DEM\'s georeferencing (its GeoKeys when the DEM is a GeoTIFF; dry cells 0, walls NODATA -9999)' },
  ],
  async check(paths, force) {
    // The .prj an .asc may get beside it too: never left behind stale, naming another CRS.
    for (const path of [...Object.values(paths), ...(paths.asc ? [prjPathBeside(paths.asc)] : [])]) await checkTarget(path, force)
  },
  async write(r, paths, force) {
    const kept = keptFinalGrid(r)
    const { md5 } = kept ? await writeGridFiles(kept.h, kept.input, paths, force) : await simulateAgain(r, paths, force)
    if (md5 !== undefined && md5 !== r.reference.md5) throw new ApiError('internal', `the grid written has md5 ${md5}, the run's reference ${r.reference.md5}`)
  },
}

/** The run's reference simulated once more from its inputs, writing `paths`. */
async function simulateAgain(r: LandslideResult, paths: GridFileTargets, force: boolean): Promise<{ md5: string }> {
  const f = r.grid.files
  // The simulation loads only when a file is written.
  const { simulate } = await import('./simulate')
  return simulate({
    header: f.header,
    dem: f.dem,
    source: f.source,
    ...(r.grid.tile && { tile: r.grid.tile }),
    steps: r.steps,
    backend: r.reference.backend,
    variant: 'fused',
    ranks: availableParallelism(),
    output: paths.output,
    asc: paths.asc,
    tif: paths.tif,
    force,
  })
}
