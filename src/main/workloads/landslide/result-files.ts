// Files the dashboard asks for after a landslide run: the reference run's final thickness as an
// ESRI ASCII grid, a GeoTIFF and a NumPy array (what `landslide simulate --asc/--tif/--npy` write), and the final
// frame at full resolution as PNG and SVG. The grid stays in the backend (final-grid.ts).
import { ApiError } from '../../../shared/errors'
import { landslideWorkload } from '../../../shared/workloads/landslide'
import type { LandslideResult } from '../../../shared/workloads/landslide/types'
import { validateParams } from '../../../shared/workloads/schema'
import type { WorkloadEngine } from '../../engine'

const encode = (text: string) => new TextEncoder().encode(text)

export const RESULT_FILES = ['final.asc', 'final.npy', 'final.tif', 'thickness-full.png', 'thickness-full.svg'] as const

export const landslideResultFiles: NonNullable<WorkloadEngine<'landslide'>['resultFiles']> = {
  names: RESULT_FILES,
  async make(results, name, input, signal) {
    const r = results as LandslideResult
    if (!r?.grid?.files || !r.reference || typeof r.steps !== 'number') throw new ApiError('invalid-argument', 'results are not a landslide run\'s')
    // The grid may be simulated again for these steps: they are bounded as a run's are.
    validateParams('landslide', { steps: landslideWorkload.params.steps }, { steps: r.steps })
    // The simulation and the writers load when a file is asked for.
    const [{ finalGrid }, { ascBytes, npyBytes, tifPieces }, { fullFrameFile }] = await Promise.all([import('./final-grid'), import('./grid-writers'), import('./thickness-files')])
    const grid = await finalGrid(r, input, signal)
    const { rows, cols } = grid.input
    switch (name) {
      case 'final.asc':
        return { bytes: ascBytes(grid.h, grid.input.header, grid.input.walls), mime: 'text/plain' }
      case 'final.npy':
        return { bytes: npyBytes(grid.h, rows, cols), mime: 'application/octet-stream' }
      case 'final.tif':
        return { bytes: Buffer.concat([...tifPieces(grid.h, grid.input)]), mime: 'image/tiff' }
      case 'thickness-full.png':
        return { bytes: (await fullFrameFile(r, grid, 'png')) as Uint8Array, mime: 'image/png' }
      case 'thickness-full.svg':
        return { bytes: encode((await fullFrameFile(r, grid, 'svg')) as string), mime: 'image/svg+xml' }
    }
    throw new ApiError('invalid-argument', `landslide makes no file ${JSON.stringify(name)}`)
  },
}
