// A final thickness grid written as the files a run asks for (--output, --asc, --npy, --tif), each
// whole or not at all: by `paralab landslide simulate` after its run, and by the landslide command
// from the grid its job kept. An .asc gets its CRS as a .prj beside it (GDAL's name for it) where
// the DEM states one that prj.ts can spell out; the GeoTIFF carries the DEM's GeoKeys.
import { createHash } from 'node:crypto'
import { writeFileAtomic } from '../../io/atomic-write'
import { prjPathBeside, prjText } from '../../../shared/prj'
import { ascPieces, npyPieces, tifPieces } from './grid-writers'
import type { LandslideInput } from './inputs'
import { hashedOnTheWay, referenceRowBytes } from './reference-format'

export interface GridFileTargets {
  /** The reference program's format, whose md5 is the study's check. */
  output?: string
  asc?: string
  npy?: string
  tif?: string
}

/** Writes `h` to each target given; the files written, and the md5 of the reference text when --output was one. */
export async function writeGridFiles(h: Float64Array, input: LandslideInput, targets: GridFileTargets, force: boolean): Promise<{ written: string[]; md5?: string }> {
  const written: string[] = []
  let md5: string | undefined
  if (targets.output) {
    const hash = createHash('md5')
    await writeFileAtomic(targets.output, hashedOnTheWay(referenceRowBytes(h, input.rows, input.cols), hash), { overwrite: force })
    md5 = hash.digest('hex')
    written.push(targets.output)
  }
  if (targets.asc) {
    await writeFileAtomic(targets.asc, ascPieces(h, input.header, input.walls), { overwrite: force })
    written.push(targets.asc)
    const prj = prjText(input.crs?.epsg ?? null)
    if (prj !== null) {
      await writeFileAtomic(prjPathBeside(targets.asc), prj, { overwrite: force })
      written.push(prjPathBeside(targets.asc))
    }
  }
  if (targets.npy) {
    await writeFileAtomic(targets.npy, npyPieces(h, input.rows, input.cols, input.walls), { overwrite: force })
    written.push(targets.npy)
  }
  if (targets.tif) {
    await writeFileAtomic(targets.tif, tifPieces(h, input), { overwrite: force })
    written.push(targets.tif)
  }
  return { written, ...(md5 !== undefined && { md5 }) }
}
