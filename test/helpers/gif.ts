// Reads an animated GIF block by block, as a viewer does: the screen size, the loop count, and each
// frame's delay and pixels (LZW-decoded, through its palette), so tests check what the encoder wrote
// without trusting the encoder.

export interface GifFrame {
  left: number
  top: number
  width: number
  height: number
  /** Hundredths of a second. */
  delay: number
  /** width × height × 3 bytes, RGB. */
  rgb: Uint8Array
}

export interface Gif {
  width: number
  height: number
  /** NETSCAPE2.0 loop count (0 = forever), undefined when absent. */
  loops?: number
  frames: GifFrame[]
}

export function readGif(bytes: Uint8Array): Gif {
  let at = 0
  const u8 = () => {
    if (at >= bytes.length) throw new Error(`GIF ends early at byte ${at}`)
    return bytes[at++]
  }
  const u16 = () => u8() | (u8() << 8)
  const table = (bits: number) => {
    const n = 3 * (1 << (bits + 1))
    const t = bytes.subarray(at, at + n)
    at += n
    return t
  }
  const subBlocks = () => {
    const parts: number[] = []
    for (let len = u8(); len !== 0; len = u8()) for (let i = 0; i < len; i++) parts.push(u8())
    return Uint8Array.from(parts)
  }
  const signature = String.fromCharCode(...bytes.subarray(0, 6))
  if (signature !== 'GIF89a' && signature !== 'GIF87a') throw new Error(`not a GIF: starts with ${JSON.stringify(signature)}`)
  at = 6
  const width = u16()
  const height = u16()
  const packed = u8()
  at += 2
  const global = packed & 0x80 ? table(packed & 7) : null
  const gif: Gif = { width, height, frames: [] }
  let delay = 0
  for (;;) {
    const block = u8()
    if (block === 0x3b) return gif
    if (block === 0x21) {
      const label = u8()
      const data = subBlocks()
      if (label === 0xf9) delay = data[1] | (data[2] << 8)
      if (label === 0xff && String.fromCharCode(...data.subarray(0, 11)) === 'NETSCAPE2.0') gif.loops = data[12] | (data[13] << 8)
      continue
    }
    if (block !== 0x2c) throw new Error(`unknown GIF block 0x${block.toString(16)} at byte ${at - 1}`)
    const left = u16()
    const top = u16()
    const w = u16()
    const h = u16()
    const flags = u8()
    if (flags & 0x40) throw new Error('interlaced frames are not read here')
    const palette = flags & 0x80 ? table(flags & 7) : global
    if (!palette) throw new Error(`GIF frame ${gif.frames.length} has no palette`)
    const minCode = u8()
    const indices = lzwDecode(subBlocks(), minCode, w * h)
    const rgb = new Uint8Array(w * h * 3)
    for (let k = 0; k < w * h; k++) rgb.set(palette.subarray(indices[k] * 3, indices[k] * 3 + 3), k * 3)
    gif.frames.push({ left, top, width: w, height: h, delay, rgb })
    delay = 0
  }
}

function lzwDecode(data: Uint8Array, minCode: number, pixels: number): Uint8Array {
  const out = new Uint8Array(pixels)
  const clear = 1 << minCode
  const end = clear + 1
  let size = minCode + 1
  let dict: number[][] = []
  const reset = () => {
    dict = Array.from({ length: clear + 2 }, (_, i) => (i < clear ? [i] : []))
    size = minCode + 1
  }
  reset()
  let n = 0
  let prev: number[] | null = null
  let bit = 0
  while (bit + size <= data.length * 8) {
    let code = 0
    for (let b = 0; b < size; b++, bit++) code |= ((data[bit >> 3] >> (bit & 7)) & 1) << b
    if (code === clear) {
      reset()
      prev = null
      continue
    }
    if (code === end) break
    let entry: number[]
    if (code < dict.length) entry = dict[code]
    else if (code === dict.length && prev) entry = [...prev, prev[0]]
    else throw new Error(`bad LZW code ${code}`)
    for (const v of entry) if (n < pixels) out[n++] = v
    if (prev) dict.push([...prev, entry[0]])
    prev = entry
    if (dict.length === 1 << size && size < 12) size++
  }
  if (n !== pixels) throw new Error(`LZW data holds ${n} pixels, the frame ${pixels}`)
  return out
}
