// The landslide's input: a DEM and an initial debris thickness of one size, either as two ESRI
// ASCII grids (.asc, each with its header), as two GeoTIFF rasters (or one GeoTIFF and one .asc),
// or as the study's three files (a header file, then the DEM and the source without headers). A
// file's content decides which it is, not its name. The header file is recognised by holding no
// grid, so it may come anywhere among the three; the DEM comes before the source.
import { readFile } from 'node:fs/promises'
import { extname } from 'node:path'
import { ApiError } from '../../../shared/errors'
import type { LandslideResult } from '../../../shared/workloads/landslide/types'
import { sniffFile } from '../../io/sniff'
import { sawRead } from '../../io/input-digest'
import { atOnce, inTurns } from '../../workers/in-turns'
import { gridError, type GridHeader, parseGridRows, parseHeader, splitLines } from './esri-grid'
import type { LandslideInput } from './landslide-input'

export type { LandslideInput } from './landslide-input'

interface TextFile {
  shown: string
  lines: string[]
}

/** Reads `paths` (real paths; `shown` are the names for messages, in the same order). */
export async function readLandslideInput(shown: string[], paths: string[], signal?: AbortSignal): Promise<LandslideInput> {
  const tiffs: boolean[] = []
  for (let i = 0; i < paths.length; i++) tiffs.push(await isTiff(shown[i], paths[i]))
  if (tiffs.some(Boolean)) return readWithRasters(shown, paths, tiffs, signal)
  const texts: TextFile[] = []
  for (let i = 0; i < paths.length; i++) {
    let text: string
    try {
      const bytes = await readFile(paths[i])
      // The run's sha256 of the file is taken from this read (io/input-digest.ts).
      sawRead(paths[i], 0, bytes)
      text = bytes.toString('utf8')
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      throw new ApiError('io', `cannot read ${shown[i]}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)
    }
    texts.push({ shown: shown[i], lines: splitLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) })
  }
  // A big grid takes seconds to parse: in slices, so that a server goes on answering meanwhile.
  return inTurns(landslideInputSteps(texts))
}

/** Whether the file's content is a TIFF; a file named .tif whose content is not is refused. */
async function isTiff(shown: string, path: string): Promise<boolean> {
  let kind
  try {
    kind = (await sniffFile(path)).kind
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    throw new ApiError('io', `cannot read ${shown}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)
  }
  if (kind === 'tiff') return true
  if (/^\.tiff?$/i.test(extname(shown))) throw new ApiError('invalid-input', `${shown}: not a TIFF file (its content is ${kind === 'empty' ? 'empty' : kind === 'text' ? 'text' : `not a TIFF's: ${kind}`}), though its name ends in ${extname(shown)}`)
  return false
}

/** A GeoTIFF DEM or source: two grids, each a GeoTIFF or an .asc with its header. */
async function readWithRasters(shown: string[], paths: string[], tiffs: boolean[], signal?: AbortSignal): Promise<LandslideInput> {
  if (paths.length !== 2)
    throw new ApiError('invalid-argument', `with a GeoTIFF grid, landslide needs two grids, the DEM and the source (the study's header file is for its text grids); got ${paths.length} files`)
  // The raster code loads when a GeoTIFF is read.
  const { ascGrid, rasterGrid, rasterInput } = await import('./raster-input')
  const grid = async (i: number) => {
    if (tiffs[i]) return rasterGrid(shown[i], paths[i], signal)
    const bytes = await readFile(paths[i]).catch((e: NodeJS.ErrnoException) => {
      throw new ApiError('io', `cannot read ${shown[i]}: ${e.message}`)
    })
    sawRead(paths[i], 0, bytes)
    const text = bytes.toString('utf8')
    return ascGrid(shown[i], splitLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text))
  }
  const dem = await grid(0)
  return rasterInput(dem, await grid(1), signal)
}

/** Whether the file holds nothing after its header: the study's header file. */
function headerOnly(f: TextFile): boolean {
  const { next } = parseHeader(f.shown, f.lines)
  return f.lines.slice(next).every((l) => l.trim() === '')
}

function hasHeader(f: TextFile): boolean {
  const first = f.lines.find((l) => l.trim() !== '')
  return first !== undefined && /^[\t ]*[A-Za-z_]/.test(first)
}

export function parseLandslideInput(files: TextFile[]): LandslideInput {
  return atOnce(landslideInputSteps(files))
}

/** parseLandslideInput, yielding between rows of the grids. */
function* landslideInputSteps(files: TextFile[]): Generator<void, LandslideInput> {
  if (files.length < 2 || files.length > 3)
    throw new ApiError('invalid-argument', `landslide needs the DEM and the source (two .asc grids) or the study's header, DEM and source files; got ${files.length} file${files.length === 1 ? '' : 's'}`)
  let shared: { file: TextFile; header: GridHeader } | undefined
  let grids = files
  if (files.length === 3) {
    const headers = files.filter((f) => hasHeader(f) && headerOnly(f))
    if (headers.length !== 1)
      throw new ApiError(
        'invalid-argument',
        `of three files, one must be the header (a file without a grid): ${headers.length === 0 ? 'none is' : `${headers.map((f) => f.shown).join(' and ')} all are`}`,
      )
    shared = { file: headers[0], header: parseHeader(headers[0].shown, headers[0].lines).header }
    grids = files.filter((f) => f !== headers[0])
  }
  const [demFile, sourceFile] = grids
  const headerOf = (f: TextFile): { header: GridHeader; next: number } => {
    if (hasHeader(f)) return parseHeader(f.shown, f.lines)
    if (!shared) throw gridError(f.shown, undefined, 'has no header: give the header file too (header, DEM, source), or use .asc grids with their headers')
    return { header: shared.header, next: 0 }
  }
  const dem = headerOf(demFile)
  const source = headerOf(sourceFile)
  const size = (h: GridHeader) => `${h.nrows} × ${h.ncols} (rows × columns)`
  if (dem.header.nrows !== source.header.nrows || dem.header.ncols !== source.header.ncols)
    throw new ApiError('invalid-input', `the grids differ in size: the DEM ${demFile.shown} is ${size(dem.header)}, the source ${sourceFile.shown} is ${size(source.header)}`)

  const { nrows: rows, ncols: cols } = dem.header
  const z = yield* parseGridRows(demFile.shown, demFile.lines, dem.next, dem.header, { nodata: dem.header.nodata })
  const sourceNodata = source.header.nodata
  const h = yield* parseGridRows(sourceFile.shown, sourceFile.lines, source.next, source.header, {
    nodata: sourceNodata,
    check: (v) => (v === sourceNodata ? 0 : v < 0 ? `negative thickness ${v}` : v),
  })
  let walls: Uint8Array | null = null
  let wallCount = 0
  const nodata = dem.header.nodata
  if (nodata !== null) {
    for (let k = 0; k < z.length; k++)
      if (z[k] === nodata) {
        walls ??= new Uint8Array(z.length)
        walls[k] = 1
        wallCount++
      }
  }
  return {
    rows,
    cols,
    header: dem.header,
    z,
    h,
    walls,
    wallCount,
    files: { dem: demFile.shown, source: sourceFile.shown, ...(shared && { header: shared.file.shown }) },
  }
}

/** The grid as a run's results describe it: size, placement, walls and the files it came from. */
export function gridSummary(input: LandslideInput): LandslideResult['grid'] {
  const { header } = input
  return {
    rows: input.rows,
    cols: input.cols,
    cellsize: header.cellsize,
    xllcorner: header.xllcorner,
    yllcorner: header.yllcorner,
    nodata: header.nodata,
    walls: input.wallCount,
    files: input.files,
    crs: input.crs ?? { epsg: null, name: 'unknown' },
    ...(input.tile && { tile: input.tile }),
  }
}
