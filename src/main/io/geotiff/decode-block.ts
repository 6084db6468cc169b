// A strip's or tile's bytes decompressed into exactly the bytes its IFD announces, and never more:
// a block that would expand past them (a compression bomb) stops there and is refused, so memory
// stays what the raster's size says. Deflate through Node's zlib (bounded by maxOutputLength);
// LZW and PackBits here, writing into the one buffer of the announced size. Then the TIFF
// predictors (horizontal differencing, floating point).
import { inflateSync } from 'node:zlib'

export const COMPRESSIONS: Record<number, string> = {
  1: 'none',
  2: 'CCITT RLE',
  3: 'CCITT fax 3',
  4: 'CCITT fax 4',
  5: 'LZW',
  6: 'old-style JPEG',
  7: 'JPEG',
  8: 'deflate',
  32773: 'PackBits',
  32946: 'deflate',
  34712: 'JPEG 2000',
  34887: 'LERC',
  34925: 'LZMA',
  50000: 'ZSTD',
  50001: 'WebP',
  50002: 'JPEG XL',
}

/** The compressions read, and the most each can expand a byte (deflate's 1032:1, 12-bit LZW codes of up to 4096 bytes, PackBits' 2 → 128). */
export const EXPANSION: Record<number, number> = { 1: 1, 5: 4096 * 8 / 9, 8: 1032, 32946: 1032, 32773: 64 }

/** Thrown when a block decodes to more or fewer bytes than announced, or is corrupt. */
export class BlockError extends Error {}

/** `data` decompressed with `compression` into `expected` bytes. */
export function decompress(compression: number, data: Uint8Array, expected: number): Uint8Array {
  switch (compression) {
    case 1:
      if (data.length < expected) throw new BlockError(`holds ${data.length} bytes, ${expected} expected`)
      return data.subarray(0, expected)
    case 8:
    case 32946:
      return inflate(data, expected)
    case 5:
      return lzw(data, expected)
    case 32773:
      return packBits(data, expected)
  }
  throw new BlockError(`compression ${compression} is not read`)
}

function short(what: string, got: number, expected: number): BlockError {
  return new BlockError(`${what} gives ${got} bytes, ${expected} expected: the data is cut short`)
}

function bomb(expected: number): BlockError {
  return new BlockError(`expands past the ${expected} bytes its IFD announces (a compression bomb?)`)
}

function inflate(data: Uint8Array, expected: number): Uint8Array {
  let out: Buffer
  try {
    out = inflateSync(data, { maxOutputLength: Math.max(1, expected) })
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw bomb(expected)
    throw new BlockError(`is not valid deflate data (${err.message})`)
  }
  if (out.length < expected) throw short('deflate', out.length, expected)
  return out
}

function packBits(data: Uint8Array, expected: number): Uint8Array {
  const out = new Uint8Array(expected)
  let o = 0
  let i = 0
  while (i < data.length && o < expected) {
    const n = (data[i++] << 24) >> 24
    if (n >= 0) {
      if (o + n + 1 > expected) throw bomb(expected)
      if (i + n + 1 > data.length) throw short('PackBits', o, expected)
      out.set(data.subarray(i, i + n + 1), o)
      o += n + 1
      i += n + 1
    } else if (n !== -128) {
      if (o + 1 - n > expected) throw bomb(expected)
      if (i >= data.length) throw short('PackBits', o, expected)
      out.fill(data[i++], o, o + 1 - n)
      o += 1 - n
    }
  }
  if (o < expected) throw short('PackBits', o, expected)
  return out
}

/** TIFF's LZW: codes of 9 to 12 bits, most significant bit first, the width growing one code early. */
function lzw(data: Uint8Array, expected: number): Uint8Array {
  const CLEAR = 256
  const EOI = 257
  const prefix = new Uint16Array(4096)
  const last = new Uint8Array(4096)
  const first = new Uint8Array(4096)
  const length = new Uint16Array(4096)
  for (let c = 0; c < 256; c++) {
    last[c] = c
    first[c] = c
    length[c] = 1
  }
  const out = new Uint8Array(expected)
  let o = 0
  let bit = 0
  const bits = data.length * 8
  let width = 9
  let next = 258
  let old = -1
  const emit = (code: number) => {
    const n = length[code]
    if (o + n > expected) throw bomb(expected)
    for (let k = o + n - 1, c = code; k >= o; k--, c = prefix[c]) out[k] = last[c]
    o += n
  }
  for (;;) {
    if (bit + width > bits) break // no EOI: the data ends here (as libtiff tolerates)
    let code = 0
    for (let k = 0; k < width; k++, bit++) code = (code << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1)
    if (code === EOI) break
    if (code === CLEAR) {
      width = 9
      next = 258
      old = -1
      continue
    }
    if (old === -1) {
      if (code > 255) throw new BlockError(`is not valid LZW data (code ${code} right after a clear)`)
      emit(code)
      old = code
      continue
    }
    if (code > next || code === next && next >= 4096) throw new BlockError(`is not valid LZW data (code ${code}, the table holds ${next})`)
    const firstByte = code < next ? first[code] : first[old]
    if (next < 4096) {
      prefix[next] = old
      last[next] = firstByte
      first[next] = first[old]
      length[next] = length[old] + 1
      next++
    }
    emit(code)
    old = code
    if (next + 1 >= 1 << width && width < 12) width++
  }
  if (o < expected) throw short('LZW', o, expected)
  return out
}

/**
 * Undoes a TIFF predictor in place over `rows` rows of `width` samples of `bytes` bytes each:
 * 2 adds each integer sample to the one before it (in the file's byte order); 3 (floating point)
 * adds byte to byte, then regathers each sample's bytes from their planes, last plane first, which
 * leaves them in the file's byte order (libtiff, and so GDAL, split them in that order: checked on
 * big- and little-endian files).
 */
export function unpredict(block: Uint8Array, predictor: number, width: number, rows: number, bytes: number, littleEndian: boolean): void {
  const rowBytes = width * bytes
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength)
  if (predictor === 2) {
    for (let r = 0; r < rows; r++) {
      const at = r * rowBytes
      for (let j = 1; j < width; j++) {
        const p = at + j * bytes
        const q = p - bytes
        if (bytes === 1) block[p] = (block[p] + block[q]) & 0xff
        else if (bytes === 2) view.setUint16(p, view.getUint16(p, littleEndian) + view.getUint16(q, littleEndian), littleEndian)
        else if (bytes === 4) view.setUint32(p, (view.getUint32(p, littleEndian) + view.getUint32(q, littleEndian)) >>> 0, littleEndian)
        else view.setBigUint64(p, BigInt.asUintN(64, view.getBigUint64(p, littleEndian) + view.getBigUint64(q, littleEndian)), littleEndian)
      }
    }
    return
  }
  const tmp = new Uint8Array(rowBytes)
  for (let r = 0; r < rows; r++) {
    const row = block.subarray(r * rowBytes, (r + 1) * rowBytes)
    for (let k = 1; k < rowBytes; k++) row[k] = (row[k] + row[k - 1]) & 0xff
    tmp.set(row)
    for (let j = 0; j < width; j++) for (let b = 0; b < bytes; b++) row[j * bytes + b] = tmp[(bytes - b - 1) * width + j]
  }
}
