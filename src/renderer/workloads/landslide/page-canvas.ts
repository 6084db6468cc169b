// The landslide's frames drawn on the page's canvases, for the GIF and PNG exports: the same drawing
// the player shows (and `--out` makes on @napi-rs/canvas), at the size asked for.
import { canvasPainter } from '../../../shared/workloads/landslide/painters'
import type { Rasterize } from '../../../shared/workloads/landslide/thickness-animation'
import { paintFrame, type ThicknessScale } from '../../../shared/workloads/landslide/thickness-frame'
import { frameLayout } from '../../../shared/workloads/landslide/map-frame'
import type { LandslideResult } from '../../../shared/workloads/landslide/types'

function context(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const ctx = canvas.getContext('2d', { willReadFrequently: true })
  if (!ctx) throw new Error('this page cannot draw on a canvas')
  return ctx
}

export const pageRasterize: Rasterize = (width, height, paint) => {
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  const ctx = context(canvas)
  paint(canvasPainter(ctx))
  return { width, height, data: ctx.getImageData(0, 0, width, height).data }
}

/** Frame `index` as PNG bytes, `pixelScale` pixels per layout pixel. */
export async function framePng(result: LandslideResult, index: number, scale: ThicknessScale, pixelScale: number): Promise<Uint8Array> {
  const layout = frameLayout(result.maps[index].size, pixelScale)
  const canvas = document.createElement('canvas')
  canvas.width = layout.width
  canvas.height = layout.height
  paintFrame(canvasPainter(context(canvas)), result, index, layout, scale)
  const blob = await new Promise<Blob | null>((done) => canvas.toBlob(done, 'image/png'))
  if (!blob) throw new Error('the page could not encode the frame as PNG')
  return new Uint8Array(await blob.arrayBuffer())
}
