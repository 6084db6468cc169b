// LZ4 decompression, bounded by the size the container announces: the output buffer is that size
// and never grows; a block that would write past it, copy from before its start or end inside a
// sequence is refused. Three containers: the raw block (Parquet LZ4_RAW), the frame format (Arrow
// IPC buffers; its checksums verified) and Hadoop's framing (Parquet LZ4, which writers also fill
// with a bare block or a frame, read as Arrow C++ and arrow-rs read them).

/** Thrown with a message the caller places. */
export class Lz4Error extends Error {}

/**
 * Decodes the LZ4 block input[p…end) into out[o…]; returns the position after what it wrote.
 * Matches may reach back to out[0] (a frame's linked blocks), never before it.
 */
export function lz4Block(input: Uint8Array, p: number, end: number, out: Uint8Array, o: number): number {
  const cut = () => new Lz4Error('LZ4 data is corrupt: a sequence ends past the data')
  const room = () => new Lz4Error(`LZ4 data expands past the ${out.length} bytes announced`)
  while (p < end) {
    const token = input[p++]
    let literals = token >> 4
    if (literals === 15) {
      let b: number
      do {
        if (p >= end) throw cut()
        b = input[p++]
        literals += b
      } while (b === 255)
    }
    if (p + literals > end) throw cut()
    if (o + literals > out.length) throw room()
    out.set(input.subarray(p, p + literals), o)
    p += literals
    o += literals
    // The last sequence has literals only.
    if (p === end) return o
    if (p + 2 > end) throw cut()
    const offset = input[p] | (input[p + 1] << 8)
    p += 2
    if (offset === 0 || offset > o) throw new Lz4Error(`LZ4 data is corrupt: a match ${offset} bytes back from byte ${o} of the output`)
    let length = (token & 15) + 4
    if ((token & 15) === 15) {
      let b: number
      do {
        if (p >= end) throw cut()
        b = input[p++]
        length += b
      } while (b === 255)
    }
    if (o + length > out.length) throw room()
    if (offset >= length) out.copyWithin(o, o - offset, o - offset + length)
    else for (let k = 0; k < length; k++) out[o + k] = out[o - offset + k] // overlapping: a repeated pattern
    o += length
  }
  return o
}

/** A raw LZ4 block expanding to exactly `size` bytes. */
export function lz4Raw(input: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size)
  const n = lz4Block(input, 0, input.length, out, 0)
  if (n !== size) throw new Lz4Error(`LZ4 data expands to ${n} bytes; ${size} are announced`)
  return out
}

const FRAME_MAGIC = 0x184d2204

/** LZ4 frames (one or more, skippable frames passed over) expanding to exactly `size` bytes. */
export function lz4Frame(input: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size)
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength)
  const cut = () => new Lz4Error('LZ4 frame is corrupt: it ends inside its header or a block')
  let p = 0
  let o = 0
  while (p < input.length) {
    if (p + 4 > input.length) throw cut()
    const magic = view.getUint32(p, true)
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      if (p + 8 > input.length) throw cut()
      p += 8 + view.getUint32(p + 4, true)
      if (p > input.length) throw cut()
      continue
    }
    if (magic !== FRAME_MAGIC) throw new Lz4Error('LZ4 data is corrupt: no LZ4 frame at its start')
    if (p + 7 > input.length) throw cut()
    const headerStart = p + 4
    const flags = input[p + 4]
    if (flags >> 6 !== 1) throw new Lz4Error(`LZ4 frame of version ${flags >> 6} (1 is read)`)
    const independent = (flags >> 5) & 1
    const blockChecksum = (flags >> 4) & 1
    const contentSize = (flags >> 3) & 1
    const contentChecksum = (flags >> 2) & 1
    if (flags & 1) throw new Lz4Error('LZ4 frame compressed with a dictionary, which is not read')
    const maxBlock = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20][(input[p + 5] >> 4) & 7]
    if (!maxBlock) throw new Lz4Error('LZ4 frame announces an unknown block size')
    p += 6
    let announced: number | undefined
    if (contentSize) {
      if (p + 8 > input.length) throw cut()
      announced = view.getUint32(p, true) + view.getUint32(p + 4, true) * 2 ** 32
      p += 8
    }
    if (p >= input.length) throw cut()
    if (((xxh32(input, headerStart, p) >>> 8) & 0xff) !== input[p]) throw new Lz4Error('LZ4 frame is corrupt: its header checksum does not match')
    p++
    const frameStart = o
    for (;;) {
      if (p + 4 > input.length) throw cut()
      const word = view.getUint32(p, true)
      p += 4
      if (word === 0) break
      const stored = word >>> 31 === 1
      const length = word & 0x7fffffff
      if (length > maxBlock || p + length + 4 * blockChecksum > input.length) throw cut()
      if (blockChecksum && xxh32(input, p, p + length) !== view.getUint32(p + length, true)) throw new Lz4Error('LZ4 frame is corrupt: a block checksum does not match')
      const blockStart = o
      if (stored) {
        if (o + length > out.length) throw new Lz4Error(`LZ4 data expands past the ${out.length} bytes announced`)
        out.set(input.subarray(p, p + length), o)
        o += length
      } else {
        // Independent blocks match within themselves only; linked ones reach back into the frame.
        const window = independent ? out.subarray(blockStart) : out.subarray(frameStart)
        o = (independent ? blockStart : frameStart) + lz4Block(input, p, p + length, window, blockStart - (independent ? blockStart : frameStart))
      }
      if (o - blockStart > maxBlock) throw new Lz4Error('LZ4 frame is corrupt: a block expands past the frame\'s block size')
      p += length + 4 * blockChecksum
    }
    if (announced !== undefined && announced !== o - frameStart) throw new Lz4Error(`LZ4 frame expands to ${o - frameStart} bytes; its header announces ${announced}`)
    if (contentChecksum) {
      if (p + 4 > input.length) throw cut()
      if (xxh32(out, frameStart, o) !== view.getUint32(p, true)) throw new Lz4Error('LZ4 frame is corrupt: its content checksum does not match')
      p += 4
    }
  }
  if (o !== size) throw new Lz4Error(`LZ4 data expands to ${o} bytes; ${size} are announced`)
  return out
}

/**
 * Parquet's LZ4: Hadoop's framing (big-endian expanded and compressed sizes before each block),
 * else an LZ4 frame, else a bare block — each tried as Arrow C++ and arrow-rs try them.
 */
export function lz4Hadoop(input: Uint8Array, size: number): Uint8Array {
  const hadoop = tryHadoop(input, size)
  if (hadoop) return hadoop
  if (input.length >= 4 && new DataView(input.buffer, input.byteOffset).getUint32(0, true) === FRAME_MAGIC) return lz4Frame(input, size)
  return lz4Raw(input, size)
}

function tryHadoop(input: Uint8Array, size: number): Uint8Array | undefined {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength)
  const out = new Uint8Array(size)
  let p = 0
  let o = 0
  while (p + 8 <= input.length) {
    const expanded = view.getUint32(p)
    const compressed = view.getUint32(p + 4)
    p += 8
    if (compressed > input.length - p || expanded > size - o) return undefined
    try {
      const n = lz4Block(input, p, p + compressed, out.subarray(o, o + expanded), 0)
      if (n !== expanded) return undefined
    } catch {
      return undefined
    }
    p += compressed
    o += expanded
  }
  return p === input.length && o === size ? out : undefined
}

const P1 = 0x9e3779b1
const P2 = 0x85ebca77
const P3 = 0xc2b2ae3d
const P4 = 0x27d4eb2f
const P5 = 0x165667b1
const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r))

/** xxHash32 (seed 0) of bytes[from…to): the LZ4 frame format's checksum. */
export function xxh32(bytes: Uint8Array, from: number, to: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let p = from
  let h: number
  if (to - from >= 16) {
    let v1 = (P1 + P2) | 0
    let v2 = P2
    let v3 = 0
    let v4 = -P1 | 0
    const round = (v: number, at: number) => Math.imul(rotl((v + Math.imul(view.getUint32(at, true), P2)) | 0, 13), P1)
    for (; p + 16 <= to; p += 16) {
      v1 = round(v1, p)
      v2 = round(v2, p + 4)
      v3 = round(v3, p + 8)
      v4 = round(v4, p + 12)
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0
  } else h = P5
  h = (h + (to - from)) | 0
  for (; p + 4 <= to; p += 4) h = Math.imul(rotl((h + Math.imul(view.getUint32(p, true), P3)) | 0, 17), P4)
  for (; p < to; p++) h = Math.imul(rotl((h + Math.imul(bytes[p], P5)) | 0, 11), P1)
  h = Math.imul(h ^ (h >>> 15), P2)
  h = Math.imul(h ^ (h >>> 13), P3)
  return (h ^ (h >>> 16)) >>> 0
}
