// The synthetic slope written as the user names it: .asc text, or a GeoTIFF of the same values
// (parsed back from the text, so both formats hold the same grid bit for bit).
import { extname } from 'node:path'
import { writeFileAtomic } from '../../io/atomic-write'
import { splitLines } from './esri-grid'
import { checkTarget } from './check-target'
import { syntheticSlope } from './example'
import { tifPieces } from './grid-writers'
import { parseLandslideInput } from './inputs'

const isTif = (path: string) => /^\.tiff?$/i.test(extname(path))

export async function writeSlope(dem: string, source: string, o: { rows: number; cols: number; seed: number; force: boolean }) {
  for (const path of [dem, source]) await checkTarget(path, o.force)
  const slope = syntheticSlope(o.seed, o.rows, o.cols)
  const input = parseLandslideInput([
    { shown: 'dem', lines: splitLines(slope.dem) },
    { shown: 'source', lines: splitLines(slope.source) },
  ])
  await writeFileAtomic(dem, isTif(dem) ? tifPieces(input.z, input) : slope.dem, { overwrite: o.force })
  await writeFileAtomic(source, isTif(source) ? tifPieces(input.h, { ...input, walls: null }) : slope.source, { overwrite: o.force })
  return { dem, source, rows: o.rows, cols: o.cols }
}
