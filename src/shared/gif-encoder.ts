/// <reference path="./gifenc.d.ts" />
// Animated GIFs from RGBA frames, with gifenc (pure JavaScript): the dashboard encodes in the page,
// the command line in Node, with this one module.
import * as gifenc from 'gifenc'

export interface RgbaImage {
  width: number
  height: number
  /** width × height × 4 bytes, row-major RGBA. */
  data: Uint8Array | Uint8ClampedArray
}

export interface GifOptions {
  /** Milliseconds each frame shows (GIF keeps hundredths of a second). */
  delayMs: number
  /** The last frame's, so a looping animation rests on the final state; default `delayMs`. */
  lastDelayMs?: number
  /** Plays this many times more after the first; 0 (the default) loops forever. */
  repeat?: number
}

type GifencModule = typeof import('gifenc')
// gifenc ships CommonJS and an ES module: Node's import sees only its `default` (module.exports),
// bundlers its named exports.
const lib: GifencModule = 'GIFEncoder' in gifenc ? gifenc : (gifenc as unknown as { default: GifencModule }).default

/** The animation's bytes; each frame gets its own palette of up to 256 colours. */
export function encodeGif(frames: readonly RgbaImage[], opts: GifOptions): Uint8Array {
  if (frames.length === 0) throw new RangeError('an animated GIF needs at least one frame')
  const { width, height } = frames[0]
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 1 && height >= 1 && width <= 65535 && height <= 65535))
    throw new RangeError(`GIF frames must be 1…65535 pixels a side, got ${width} × ${height}`)
  frames.forEach((f, i) => {
    if (f.width !== width || f.height !== height) throw new RangeError(`GIF frame ${i} is ${f.width} × ${f.height}, frame 0 ${width} × ${height}`)
    if (f.data.length !== width * height * 4) throw new RangeError(`GIF frame ${i}: ${f.data.length} bytes for ${width} × ${height} RGBA pixels (${width * height * 4})`)
  })
  const gif = lib.GIFEncoder()
  frames.forEach((f, i) => {
    const palette = lib.quantize(f.data, 256)
    const index = lib.applyPalette(f.data, palette)
    const delay = i === frames.length - 1 ? (opts.lastDelayMs ?? opts.delayMs) : opts.delayMs
    gif.writeFrame(index, width, height, { palette, delay, repeat: opts.repeat ?? 0 })
  })
  gif.finish()
  return gif.bytes()
}
