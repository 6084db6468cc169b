// The recorded maps as an animated GIF: every frame drawn as the player draws it, on whichever
// canvas the side has (the page's, or @napi-rs/canvas in Node), encoded by the one GIF encoder.
import { encodeGif, type RgbaImage } from '../../gif-encoder'
import type { Painter } from './painters'
import { type FrameSource, paintFrame, thicknessScale } from './thickness-frame'
import { frameLayout } from './map-frame'

/** Milliseconds per frame, in the player and the GIF. */
export const FRAME_MS = 400
/** The last frame rests longer before the animation loops. */
export const LAST_FRAME_MS = 2000

/** Draws `paint` on a canvas of `width` × `height` pixels and returns its pixels. */
export type Rasterize = (width: number, height: number, paint: (p: Painter) => void) => RgbaImage | Promise<RgbaImage>

export async function thicknessGif(result: FrameSource, rasterize: Rasterize, pixelScale = 1): Promise<Uint8Array> {
  if (result.maps.length === 0) throw new RangeError('this run recorded no thickness maps to animate')
  const scale = thicknessScale(result.maps)
  const layout = frameLayout(result.maps[0].size, pixelScale)
  const frames: RgbaImage[] = []
  for (let i = 0; i < result.maps.length; i++) frames.push(await rasterize(layout.width, layout.height, (p) => paintFrame(p, result, i, layout, scale)))
  return encodeGif(frames, { delayMs: FRAME_MS, lastDelayMs: LAST_FRAME_MS })
}
