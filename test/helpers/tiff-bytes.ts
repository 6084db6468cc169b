// Hand-made TIFF files for hostile tests: a little-endian classic TIFF whose IFD holds exactly the
// entries given (no checks: the point is to write what no library would), the data after it.
const TYPE_BYTES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 11: 4, 12: 8 }

export const SHORT = 3
export const LONG = 4
export const DOUBLE = 12
export const ASCII = 2

/** The data's offset, for StripOffsets/TileOffsets values. */
export const DATA = -1

export interface TiffEntry {
  tag: number
  type: number
  values: number[]
}

export function tiffBytes(entries: TiffEntry[], data: Uint8Array, opts: { ifdOffset?: number } = {}): Buffer {
  const sorted = [...entries].sort((a, b) => a.tag - b.tag)
  const ifdBytes = 2 + sorted.length * 12 + 4
  let extra = 0
  for (const e of sorted) {
    const n = TYPE_BYTES[e.type] * e.values.length
    if (n > 4) extra += n
  }
  const dataAt = 8 + ifdBytes + extra
  const out = Buffer.alloc(dataAt + data.length)
  out.write('II', 0, 'latin1')
  out.writeUInt16LE(42, 2)
  out.writeUInt32LE(opts.ifdOffset ?? 8, 4)
  out.writeUInt16LE(sorted.length, 8)
  let free = 8 + ifdBytes
  sorted.forEach((e, i) => {
    const at = 10 + i * 12
    out.writeUInt16LE(e.tag, at)
    out.writeUInt16LE(e.type, at + 2)
    out.writeUInt32LE(e.values.length, at + 4)
    const size = TYPE_BYTES[e.type]
    let to = at + 8
    if (size * e.values.length > 4) {
      out.writeUInt32LE(free, at + 8)
      to = free
      free += size * e.values.length
    }
    e.values.forEach((raw, k) => {
      const v = raw === DATA ? dataAt : raw
      if (size === 1) out.writeUInt8(v, to + k)
      else if (e.type === SHORT) out.writeUInt16LE(v, to + 2 * k)
      else if (e.type === LONG) out.writeUInt32LE(v, to + 4 * k)
      else if (e.type === 11) out.writeFloatLE(v, to + 4 * k)
      else out.writeDoubleLE(v, to + 8 * k)
    })
  })
  out.set(data, dataAt)
  return out
}

/** The entries of a one-strip float raster of `width` × `height` placed at (0, 0) with 10 m cells. */
export function floatRaster(width: number, height: number, bits: 32 | 64, compression: number, stripBytes: number): TiffEntry[] {
  return [
    { tag: 256, type: LONG, values: [width] },
    { tag: 257, type: LONG, values: [height] },
    { tag: 258, type: SHORT, values: [bits] },
    { tag: 259, type: SHORT, values: [compression] },
    { tag: 262, type: SHORT, values: [1] },
    { tag: 273, type: LONG, values: [DATA] },
    { tag: 277, type: SHORT, values: [1] },
    { tag: 278, type: LONG, values: [height] },
    { tag: 279, type: LONG, values: [stripBytes] },
    { tag: 339, type: SHORT, values: [3] },
    { tag: 33550, type: DOUBLE, values: [10, 10, 0] },
    { tag: 33922, type: DOUBLE, values: [0, 0, 0, 0, height * 10, 0] },
  ]
}
