// The thickness over the relief as files, drawn in Node on @napi-rs/canvas: the last recorded frame
// as PNG and SVG and every frame as an animated GIF, the same pictures the dashboard's player shows
// and exports. `--out` writes them into the result set.
import { ApiError } from '../../../shared/errors'
import type { RgbaImage } from '../../../shared/gif-encoder'
import { canvasPainter, type Canvas2D } from '../../../shared/workloads/landslide/painters'
import { type Rasterize, thicknessGif } from '../../../shared/workloads/landslide/thickness-animation'
import { type FrameSource, frameLayout, frameSvg, paintFrame } from '../../../shared/workloads/landslide/thickness-frame'
import type { LandslideResult } from '../../../shared/workloads/landslide/types'
import { loadCanvas } from '../../charts/render'

export interface NamedFile {
  name: string
  data: Uint8Array | string
}

/** PNG pixels per layout pixel, as the charts' PNGs default to (for print). */
const PNG_SCALE = 2

type SkiaCanvas = InstanceType<Awaited<ReturnType<typeof loadCanvas>>['Canvas']>

async function drawOn(width: number, height: number, paint: (ctx: Canvas2D) => void): Promise<SkiaCanvas> {
  const skia = await loadCanvas()
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

/** thickness.png and thickness.svg (the last frame) and thickness.gif (every frame); none for a run without maps. */
export async function thicknessFiles(result: LandslideResult): Promise<NamedFile[]> {
  if (result.maps.length === 0) return []
  return [
    { name: 'thickness.png', data: await lastFramePng(result) },
    { name: 'thickness.svg', data: frameSvg(result, result.maps.length - 1) },
    { name: 'thickness.gif', data: await thicknessGif(result, nodeRasterize) },
  ]
}
