// Files the dashboard asks for after a landslide run: the reference run's final thickness as an
// ESRI ASCII grid (and its CRS as the .prj beside it, where one can be written), a GeoTIFF and a NumPy array (what `landslide simulate --asc/--tif/--npy` write), and the final
// frame at full resolution (at most FULL_SIDE map cells a side, each the deepest of its block of grid
// cells, as the picture says) as PNG and SVG. Asked of a run in the history (exportRunFile), they are
// made from the grid the run kept (kept-grid.ts) as they are sent, or from the grid simulated again
// when it kept none; asked with the results alone (exportResultFile), they are made whole, as long
// as they fit a reply.
import { ApiError } from '../../../shared/errors'
import { sizeText } from '../../../shared/wire'
import { landslideWorkload } from '../../../shared/workloads/landslide'
import { crsText, type LandslideResult } from '../../../shared/workloads/landslide/types'
import { prjText } from '../../../shared/prj'
import { validateParams } from '../../../shared/workloads/schema'
import type { MadeFile, WorkloadEngine } from '../../engine'
import { memoryPieces } from '../../io/file-pieces'

export const RESULT_FILES = ['final.asc', 'final.prj', 'final.npy', 'final.tif', 'thickness-full.png', 'thickness-full.svg'] as const

/**
 * Bytes of a file made whole, to be sent in one reply as base64 (a third more, within
 * MAX_REPLY_BYTES): a larger grid's files are downloaded from the run in the history.
 */
export const WHOLE_FILE_BYTES = 64 * 2 ** 20

export const landslideResultFiles: NonNullable<WorkloadEngine<'landslide'>['resultFiles']> = {
  names: RESULT_FILES,
  async make(results, name, input, signal, kept) {
    const r = results as LandslideResult
    if (!r?.grid?.files || !r.reference || typeof r.steps !== 'number') throw new ApiError('invalid-argument', 'results are not a landslide run\'s')
    if (!(RESULT_FILES as readonly string[]).includes(name)) throw new ApiError('invalid-argument', `landslide makes no file ${JSON.stringify(name)}`)
    // The .asc's CRS, from the results alone.
    if (name === 'final.prj') {
      const prj = prjText(r.grid.crs?.epsg ?? null)
      if (prj === null) throw new ApiError('invalid-argument', `this run's CRS, ${crsText(r.grid.crs)}, is not one Paralab can write as a .prj (UTM zones on WGS 84, ETRS89 and NAD83); final.tif carries it`)
      return { mime: 'text/plain', bytes: new TextEncoder().encode(prj) }
    }
    if (kept) {
      const made = await (await import('./kept-grid')).keptGridFile(r, name, kept, signal)
      if (made) return made
    }
    // The grid's binary files have their size before anything is computed.
    const cells = Number(r.grid.rows) * Number(r.grid.cols)
    if (!kept && (name === 'final.npy' || name === 'final.tif') && cells * 8 > WHOLE_FILE_BYTES) throw tooLarge(name, r, cells * 8)
    // The grid may be simulated again for these steps: they are bounded as a run's are.
    validateParams('landslide', { steps: landslideWorkload.params.steps }, { steps: r.steps })
    // The simulation and the writers load when a file is asked for.
    const [{ finalGrid }, { ascPieces, npyPieces, tifPieces }, { fullFrameFile }, { joinPieces }] = await Promise.all([
      import('./final-grid'),
      import('./grid-writers'),
      import('./thickness-files'),
      import('../../io/text-pieces'),
    ])
    const grid = await finalGrid(r, input, signal)
    const { rows, cols } = grid.input
    let made: { pieces: Iterable<Uint8Array>; mime: string }
    switch (name) {
      case 'final.asc':
        made = { pieces: ascPieces(grid.h, grid.input.header, grid.input.walls), mime: 'text/plain' }
        break
      case 'final.npy':
        made = { pieces: npyPieces(grid.h, rows, cols, grid.input.walls), mime: 'application/octet-stream' }
        break
      case 'final.tif':
        made = { pieces: tifPieces(grid.h, grid.input), mime: 'image/tiff' }
        break
      default: {
        const frame = await fullFrameFile(r, grid, name === 'thickness-full.png' ? 'png' : 'svg')
        made = { pieces: [typeof frame === 'string' ? new TextEncoder().encode(frame) : frame], mime: name.endsWith('.png') ? 'image/png' : 'image/svg+xml' }
      }
    }
    if (kept) return { mime: made.mime, pieces: memoryPieces(made.pieces, signal) } satisfies MadeFile
    return { mime: made.mime, bytes: joinPieces(capped(made.pieces, name, r)) }
  },
}

function tooLarge(name: string, r: LandslideResult, bytes: number): ApiError {
  return new ApiError(
    'invalid-argument',
    `${name} of this ${r.grid.rows} × ${r.grid.cols} grid is ${bytes > WHOLE_FILE_BYTES ? sizeText(bytes) : `over ${sizeText(WHOLE_FILE_BYTES)}`}, more than the ${sizeText(WHOLE_FILE_BYTES)} a file sent whole may take: download it from the run in the history, which sends it as it is read`,
  )
}

/** The pieces, refused once they pass WHOLE_FILE_BYTES. */
function* capped(pieces: Iterable<Uint8Array>, name: string, r: LandslideResult): Generator<Uint8Array> {
  let total = 0
  for (const p of pieces) {
    total += p.length
    if (total > WHOLE_FILE_BYTES) throw tooLarge(name, r, 0)
    yield p
  }
}
