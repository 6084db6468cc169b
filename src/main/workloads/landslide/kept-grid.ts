// The final grid a dashboard's landslide run keeps beside its history entry (JobContext.keep), and
// the result files made from it on request as they are sent: the reference run's final thickness as
// `final.npy` (f64, walls NaN, the download itself), its walls as one bit a cell, the full-resolution final
// frame (thickness and relief, at most FULL_SIDE map cells a side) and what the files need besides
// (the DEM's header and georeferencing) in `final-grid.json`, written last. On Tessina tiled 12 × 14
// (7 320 × 6 944 cells) the .npy and the GeoTIFF are 406 MB and the .asc larger: they are read a
// block of rows at a time and never simulated again. Read back only when the description is this
// run's (size, steps, md5) and each file's size (and the .npy's header) is what it says.
import { ApiError } from '../../../shared/errors'
import type { LandslideHillshade, LandslideResult, ThicknessMap } from '../../../shared/workloads/landslide/types'
import type { JobContext, KeptFileOpener, MadeFile } from '../../engine'
import { memoryPieces, readFully, readPieces } from '../../io/file-pieces'
import type { GeoTags } from '../../io/geotiff/read-raster'
import { geoTiffCells, geoTiffHead } from '../../io/geotiff/write-geotiff'
import { TextPieces, textPieces } from '../../io/text-pieces'
import type { GridHeader } from './esri-grid'
import type { FinalGrid } from './final-grid'
import { ascHeaderText, npyGridHeader, npyPieces, putAscRow, tifLayout } from './grid-writers'
import { framePng, fullResolutionFrame } from './thickness-files'
import { frameSvgPieces, FULL_SIDE, thicknessScale } from '../../../shared/workloads/landslide/thickness-frame'

export const KEPT_GRID = 'final.npy'
export const KEPT_WALLS = 'final-walls.bits'
export const KEPT_FRAME = 'final-frame.f64'
export const KEPT_INFO = 'final-grid.json'
/** Bytes the description may take (the DEM's GeoKeys and header included). */
const INFO_BYTES = 2 ** 20
/** Bytes of the grid read at a time for the text and GeoTIFF files. */
const BLOCK_BYTES = 8 * 2 ** 20

type MapWindow = Pick<ThicknessMap, 'step' | 'row0' | 'col0' | 'size' | 'block'>
type ReliefWindow = Omit<LandslideHillshade, 'values'>

/** What the files made from the kept grid need besides its cells. */
export interface KeptInfo {
  rows: number
  cols: number
  steps: number
  md5: string
  header: GridHeader
  geo?: GeoTags
  walls: boolean
  /** The full-resolution final frame's windows; its values are KEPT_FRAME's (thickness, then relief; NaN for none). */
  frame?: { map: MapWindow; hillshade?: ReliefWindow }
}

/**
 * Keeps the run's final grid and what its files need; false when the bound on kept files leaves no
 * room for the grid (nothing of it is then kept, and the files are made by simulating again).
 */
export async function keepFinalGridFiles(keep: NonNullable<JobContext['keep']>, r: LandslideResult, grid: FinalGrid): Promise<boolean> {
  const { input, h } = grid
  const { rows, cols } = input
  if ((await keep(KEPT_GRID, npyGridHeader(rows, cols).length + h.byteLength, npyPieces(h, rows, cols, input.walls))) === null) return false
  if (input.walls) {
    const bits = packBits(input.walls)
    if ((await keep(KEPT_WALLS, bits.length, bits)) === null) return false
  }
  let frame: KeptInfo['frame']
  if (r.maps.length > 0) {
    // A pass over the debris' window of a big grid: the event loop's turn first.
    await new Promise<void>((resolve) => setImmediate(resolve))
    const { frames } = fullResolutionFrame(r, grid)
    await new Promise<void>((resolve) => setImmediate(resolve))
    const [map] = frames.maps
    const relief = frames.hillshade
    const values = new Float64Array(map.values.length + (relief?.values.length ?? 0))
    map.values.forEach((v, k) => (values[k] = v ?? NaN))
    relief?.values.forEach((v, k) => (values[map.values.length + k] = v ?? NaN))
    if ((await keep(KEPT_FRAME, values.byteLength, new Uint8Array(values.buffer))) === null) return false
    const { values: _m, ...mapWindow } = map
    frame = { map: mapWindow, ...(relief && { hillshade: (({ values: _h, ...w }) => w)(relief) }) }
  }
  const info: KeptInfo = { rows, cols, steps: r.steps, md5: r.reference.md5, header: input.header, ...(input.geo && { geo: input.geo }), walls: input.walls !== null, ...(frame && { frame }) }
  const text = JSON.stringify(info)
  return (await keep(KEPT_INFO, Buffer.byteLength(text), text)) !== null
}

/**
 * `name` made from the grid run `r` kept, in pieces as it is sent; null when the run kept none
 * (a run the command line made, or one whose files made room for newer runs').
 */
export async function keptGridFile(r: LandslideResult, name: string, kept: KeptFileOpener, signal?: AbortSignal): Promise<MadeFile | null> {
  const info = await readInfo(r, kept)
  if (!info) return null
  const n = info.rows * info.cols
  switch (name) {
    case 'final.npy': {
      const first = await openGrid(kept, info)
      await first.file.close()
      return { mime: 'application/octet-stream', size: first.dataOffset + n * 8, pieces: npyFile(kept, info, signal) }
    }
    case 'final.asc':
      await (await openGrid(kept, info)).file.close()
      await (await openWalls(kept, info))?.file.close()
      return { mime: 'text/plain', pieces: ascFile(kept, info, signal) }
    case 'final.tif': {
      await (await openGrid(kept, info)).file.close()
      await (await openWalls(kept, info))?.file.close()
      const head = geoTiffHead(tifLayout(info))
      return { mime: 'image/tiff', size: head.length + n * 8, pieces: tifFile(kept, info, head, signal) }
    }
    case 'thickness-full.png': {
      const png = await framePng(await readFrame(r, kept, info), thicknessScale(r.maps))
      return { mime: 'image/png', size: png.length, pieces: memoryPieces([png], signal) }
    }
    case 'thickness-full.svg':
      // Encoded a piece of elements at a time: up to a million cells' elements are never one string.
      return { mime: 'image/svg+xml', pieces: memoryPieces(textPieces(frameSvgPieces(await readFrame(r, kept, info), 0, thicknessScale(r.maps))), signal) }
  }
  return null
}

async function* npyFile(kept: KeptFileOpener, info: KeptInfo, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { file, dataOffset } = await openGrid(kept, info)
  try {
    yield* readPieces(file, 0, dataOffset + info.rows * info.cols * 8, 'the kept grid', signal)
  } finally {
    await file.close()
  }
}

async function* ascFile(kept: KeptFileOpener, info: KeptInfo, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const out = new TextPieces(undefined, undefined, true)
  out.put(ascHeaderText(info.header))
  for await (const block of gridBlocks(kept, info, signal)) {
    for (let i = 0; i < block.rows; i++) {
      putAscRow(out, block.h, block.walls, i * info.cols, info.cols)
      yield* out.filled()
    }
  }
  yield* out.rest()
}

async function* tifFile(kept: KeptFileOpener, info: KeptInfo, head: Uint8Array, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  yield head
  // One buffer for every block's bytes: a piece is valid until the next is asked for.
  let into: Uint8Array | undefined
  for await (const block of gridBlocks(kept, info, signal)) yield (into = geoTiffCells(block.h, block.walls, tifLayout(info).nodata, into))
}

/**
 * The kept grid a block of whole rows at a time (rows `from` … `to` − 1, about `blockBytes` of the
 * grid a block), with their walls (1 a wall) when the grid has any; each block's arrays are valid
 * until the next is asked for.
 */
export async function* gridBlocks(
  kept: KeptFileOpener,
  info: KeptInfo,
  signal?: AbortSignal,
  { from = 0, to = info.rows, blockBytes = BLOCK_BYTES }: { from?: number; to?: number; blockBytes?: number } = {},
): AsyncGenerator<{ rows: number; h: Float64Array; walls: Uint8Array | null }> {
  const { cols } = info
  const rows = Math.min(to, info.rows)
  const grid = await openGrid(kept, info)
  let bits: Awaited<ReturnType<KeptFileOpener>> | null = null
  try {
    bits = await openWalls(kept, info)
    const perBlock = Math.max(1, Math.floor(blockBytes / (cols * 8)))
    const h = new Float64Array(Math.max(0, Math.min(rows - from, perBlock)) * cols)
    const walls = bits ? new Uint8Array(h.length) : null
    for (let i0 = Math.max(0, from); i0 < rows; i0 += perBlock) {
      if (signal?.aborted) throw new ApiError('cancelled', 'the reading of the kept grid was cancelled')
      const n = Math.min(perBlock, rows - i0)
      const k0 = i0 * cols
      const cells = n * cols
      await readFully(grid.file, new Uint8Array(h.buffer, 0, cells * 8), grid.dataOffset + k0 * 8, 'the kept grid')
      if (bits && walls) {
        const b0 = k0 >> 3
        const packed = new Uint8Array(((k0 + cells - 1) >> 3) - b0 + 1)
        await readFully(bits.file, packed, b0, 'the kept walls')
        for (let k = 0; k < cells; k++) walls[k] = (packed[((k0 + k) >> 3) - b0] >> ((k0 + k) & 7)) & 1
      }
      yield { rows: n, h: h.subarray(0, cells), walls: walls && walls.subarray(0, cells) }
    }
  } finally {
    await grid.file.close()
    await bits?.file.close()
  }
}

/** The kept walls, opened, when the grid has any and they take a bit a cell of it. */
export async function openWalls(kept: KeptFileOpener, info: KeptInfo): Promise<Awaited<ReturnType<KeptFileOpener>> | null> {
  if (!info.walls) return null
  const bits = await kept(KEPT_WALLS)
  const expected = Math.ceil((info.rows * info.cols) / 8)
  if (bits.size === expected) return bits
  await bits.file.close()
  throw new ApiError('io', `the kept walls hold ${bits.size} bytes, not the ${expected} of this run's ${info.rows} × ${info.cols} grid`)
}

/** Walls as one bit a cell, cell k at bit k % 8 of byte k / 8. */
function packBits(walls: Uint8Array): Uint8Array {
  const bits = new Uint8Array(Math.ceil(walls.length / 8))
  for (let k = 0; k < walls.length; k++) if (walls[k]) bits[k >> 3] |= 1 << (k & 7)
  return bits
}

/** The kept grid, opened, when its size and header are those of the run's rows × cols f64 grid. */
export async function openGrid(kept: KeptFileOpener, info: KeptInfo) {
  const header = npyGridHeader(info.rows, info.cols)
  const expected = header.length + info.rows * info.cols * 8
  const { file, size } = await kept(KEPT_GRID)
  try {
    if (size !== expected) throw new ApiError('io', `the kept grid holds ${size} bytes, not the ${expected} of this run's ${info.rows} × ${info.cols} grid`)
    const head = new Uint8Array(header.length)
    await readFully(file, head, 0, 'the kept grid')
    if (!head.every((b, i) => b === header[i])) throw new ApiError('io', `the kept grid's header is not that of this run's ${info.rows} × ${info.cols} f64 grid`)
    return { file, dataOffset: header.length }
  } catch (e) {
    await file.close()
    throw e
  }
}

/** The full-resolution frame the run kept, as the frame's drawing takes it. */
async function readFrame(r: LandslideResult, kept: KeptFileOpener, info: KeptInfo) {
  if (!info.frame) throw new ApiError('invalid-argument', 'landslide: the run recorded no thickness maps')
  const { map, hillshade } = info.frame
  const cells = map.size ** 2 + (hillshade ? hillshade.size ** 2 : 0)
  const { file, size } = await kept(KEPT_FRAME)
  try {
    if (size !== cells * 8) throw new ApiError('io', `the kept frame holds ${size} bytes, not the ${cells * 8} of its ${map.size}² map${hillshade ? ` and ${hillshade.size}² relief` : ''}`)
    const values = new Float64Array(cells)
    await readFully(file, new Uint8Array(values.buffer), 0, 'the kept frame')
    const list = (from: number, to: number) => Array.from(values.subarray(from, to), (v) => (v === v ? v : null))
    const mapCells = map.size ** 2
    return {
      steps: r.steps,
      grid: r.grid,
      maps: [{ ...map, values: list(0, mapCells) }],
      ...(hillshade && { hillshade: { ...hillshade, values: list(mapCells, cells) } }),
    }
  } finally {
    await file.close()
  }
}

/** The run's kept description, checked against its results; null when the run kept none. */
export async function readInfo(r: LandslideResult, kept: KeptFileOpener): Promise<KeptInfo | null> {
  let opened
  try {
    opened = await kept(KEPT_INFO)
  } catch (e) {
    if (/keeps no /.test(ApiError.from(e).message)) return null
    throw e
  }
  const { file, size } = opened
  let parsed: unknown
  try {
    if (size > INFO_BYTES) throw new ApiError('io', `the kept grid's description takes ${size} bytes, more than the ${INFO_BYTES} it may`)
    parsed = JSON.parse((await file.readFile()).toString('utf8'))
  } catch (e) {
    throw e instanceof SyntaxError ? new ApiError('io', 'the kept grid\'s description is not JSON') : e
  } finally {
    await file.close()
  }
  const info = checkInfo(parsed)
  if (info.rows !== r.grid.rows || info.cols !== r.grid.cols || info.steps !== r.steps || info.md5 !== r.reference.md5)
    throw new ApiError('io', `the kept grid is not this run's (${info.rows} × ${info.cols} after ${info.steps} steps, md5 ${info.md5})`)
  return info
}

const isCount = (v: unknown, most = 2 ** 31): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= most
const isFinite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isLine = (v: unknown): v is string => typeof v === 'string' && v.length <= 200 && !/[\r\n\0]/.test(v)

/** The description as written by keepFinalGridFiles, or an error naming what is not. */
function checkInfo(v: unknown): KeptInfo {
  const bad = (what: string) => new ApiError('io', `the kept grid's description has no valid ${what}`)
  const o = v as Record<string, unknown>
  if (typeof o !== 'object' || o === null) throw bad('object')
  if (!isCount(o.rows) || !isCount(o.cols) || o.rows < 1 || o.cols < 1 || o.rows * o.cols > 2 ** 32) throw bad('size')
  if (!isCount(o.steps) || typeof o.md5 !== 'string' || typeof o.walls !== 'boolean') throw bad('steps, md5 or walls')
  const h = o.header as Record<string, unknown>
  if (typeof h !== 'object' || h === null || h.nrows !== o.rows || h.ncols !== o.cols || ![h.xllcorner, h.yllcorner, h.cellsize].every(isFinite) || !(h.nodata === null || isFinite(h.nodata)))
    throw bad('header')
  if (!Array.isArray(h.entries) || h.entries.length > 16 || !h.entries.every((e) => Array.isArray(e) && e.length === 2 && e.every(isLine))) throw bad('header lines')
  if (o.geo !== undefined) {
    const g = o.geo as Record<string, unknown>
    if (typeof g !== 'object' || g === null) throw bad('georeferencing')
    for (const [k, x] of Object.entries(g)) {
      const ok = k === 'geoAsciiParams' ? typeof x === 'string' && x.length <= 65536 : ['pixelScale', 'tiepoint', 'transformation', 'geoKeyDirectory', 'geoDoubleParams'].includes(k) && Array.isArray(x) && x.length <= 65536 && x.every(isFinite)
      if (!ok) throw bad(`georeferencing (${k})`)
    }
  }
  if (o.frame !== undefined) {
    const f = o.frame as Record<string, Record<string, unknown>>
    const window = (w: Record<string, unknown> | undefined) =>
      typeof w === 'object' && w !== null && isCount(w.size, FULL_SIDE) && isCount(w.block) && (w.block as number) >= 1 && Number.isSafeInteger(w.row0) && Number.isSafeInteger(w.col0)
    if (typeof f !== 'object' || f === null || !window(f.map) || !isCount(f.map.step)) throw bad('frame')
    if (f.hillshade !== undefined && (!window(f.hillshade) || !isFinite(f.hillshade.azimuth) || !isFinite(f.hillshade.altitude))) throw bad('frame\'s relief')
  }
  return o as unknown as KeptInfo
}
