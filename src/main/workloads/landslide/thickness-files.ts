// The thickness over the relief as files, drawn in Node on @napi-rs/canvas: the last recorded frame
// as PNG and SVG and every frame as an animated GIF, the same pictures the dashboard's player shows
// and exports. `--out` writes them into the result set, the final frame at full resolution (a grid
// cell a map cell) when the run's final grid is at hand.
import { ApiError } from '../../../shared/errors'
import type { RgbaImage } from '../../../shared/gif-encoder'
import { canvasPainter, type Canvas2D } from '../../../shared/workloads/landslide/painters'
import { type Rasterize, thicknessGif } from '../../../shared/workloads/landslide/thickness-animation'
import { type FrameSource, frameSvg, fullFrameWindow, paintFrame, thicknessScale } from '../../../shared/workloads/landslide/thickness-frame'
import { frameLayout } from '../../../shared/workloads/landslide/map-frame'
import type { LandslideResult } from '../../../shared/workloads/landslide/types'
import type { loadCanvas } from '../../charts/render'
import { type FinalGrid, keptFinalGrid } from './final-grid'
import { thicknessMapIn } from './grid-stats'
import { hillshadeMap } from './hillshade'

export interface NamedFile {
  name: string
  data: Uint8Array | string
}

/** PNG pixels per layout pixel, as the charts' PNGs default to (for print). */
const PNG_SCALE = 2

type SkiaCanvas = InstanceType<Awaited<ReturnType<typeof loadCanvas>>['Canvas']>

async function drawOn(width: number, height: number, paint: (ctx: Canvas2D) => void): Promise<SkiaCanvas> {
  // Loaded with the renderer, by the runs that draw frames only.
  const skia = await (await import('../../charts/render')).loadCanvas()
  const canvas = skia.createCanvas(width, height)
  paint(canvas.getContext('2d') as unknown as Canvas2D)
  return canvas
}

export const nodeRasterize: Rasterize = async (width, height, paint): Promise<RgbaImage> => {
  const canvas = await drawOn(width, height, (ctx) => paint(canvasPainter(ctx)))
  const pixels = canvas.getContext('2d').getImageData(0, 0, width, height)
  return { width, height, data: pixels.data }
}

/** The last frame as PNG. */
export async function lastFramePng(result: FrameSource): Promise<Uint8Array> {
  const index = result.maps.length - 1
  if (index < 0) throw new ApiError('internal', 'landslide: the run recorded no thickness maps')
  const layout = frameLayout(result.maps[index].size, PNG_SCALE)
  const canvas = await drawOn(layout.width, layout.height, (ctx) => paintFrame(canvasPainter(ctx), result, index, layout))
  const png = await canvas.encode('png')
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength)
}

/**
 * The final frame over the run's map window at full resolution: one map cell per grid cell (up to
 * FULL_SIDE a side), the relief at the same resolution, coloured on the run's own thickness scale.
 */
export function fullResolutionFrame(r: LandslideResult, grid: FinalGrid): { frames: FrameSource; scale: ReturnType<typeof thicknessScale> } {
  const last = r.maps.at(-1)
  if (!last) throw new ApiError('invalid-argument', 'landslide: the run recorded no thickness maps')
  const window = fullFrameWindow(last)
  const { input, h } = grid
  const map = thicknessMapIn(r.steps, h, input.rows, input.cols, window)
  // The relief carved as a run's first step finds it, a band of rows at a time (no copy of the grid).
  const hillshade = hillshadeMap(input.z, input.rows, input.cols, input.walls, input.header.cellsize, window, input.h)
  return { frames: { steps: r.steps, grid: r.grid, maps: [map], hillshade }, scale: thicknessScale(r.maps) }
}

/** The full-resolution final frame as PNG (2 pixels per layout pixel) or SVG. */
export async function fullFrameFile(r: LandslideResult, grid: FinalGrid, format: 'png' | 'svg'): Promise<Uint8Array | string> {
  const { frames, scale } = fullResolutionFrame(r, grid)
  return format === 'svg' ? frameSvg(frames, 0, scale) : framePng(frames, scale)
}

/** A one-frame source drawn as PNG, 2 pixels per layout pixel, on the given thickness scale. */
export async function framePng(frames: FrameSource, scale: ReturnType<typeof thicknessScale>): Promise<Uint8Array> {
  const layout = frameLayout(frames.maps[0].size, PNG_SCALE)
  const canvas = await drawOn(layout.width, layout.height, (ctx) => paintFrame(canvasPainter(ctx), frames, 0, layout, scale))
  const png = await canvas.encode('png')
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength)
}

/**
 * thickness.png and thickness.svg (the last frame: at full resolution when the run's final grid is
 * kept, as after a job in this process) and thickness.gif (every frame); none for a run without maps.
 */
export async function thicknessFiles(result: LandslideResult): Promise<NamedFile[]> {
  if (result.maps.length === 0) return []
  const grid = keptFinalGrid(result)
  return [
    { name: 'thickness.png', data: grid ? await fullFrameFile(result, grid, 'png') : await lastFramePng(result) },
    { name: 'thickness.svg', data: grid ? await fullFrameFile(result, grid, 'svg') : frameSvg(result, result.maps.length - 1) },
    { name: 'thickness.gif', data: await thicknessGif(result, nodeRasterize) },
  ]
}
