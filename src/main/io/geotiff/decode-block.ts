// A strip's or tile's bytes decompressed into no more than the rows of it that cover the raster,
// and never past the bytes its IFD announces: a block that would expand past them (a compression
// bomb) stops there and is refused, and the padding rows of a tile larger than the raster are never
// decoded (a 3 × 3 raster in one 16 384² tile inflates three rows, not 1 GiB). Off the event loop or
// in slices: deflate through zlib's stream (on libuv's threads), ZSTD through zstddec's streaming
// decoder a window at a time, LZW and PackBits here a slice at a time; a cancel is seen between
// slices. Then the TIFF predictors (horizontal differencing, floating point).
import { createInflate } from 'node:zlib'
import { ZSTDDecoder } from 'zstddec/stream'
import { throwIfAborted } from '../../../shared/cancel'
import { Turns } from '../../workers/in-turns'

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

/**
 * The compressions read, and the most each can expand a byte: deflate's 1032:1, 12-bit LZW codes of
 * up to 4096 bytes, PackBits' 2 → 128, ZSTD's RLE blocks (4 bytes → 128 KiB).
 */
export const EXPANSION: Record<number, number> = { 1: 1, 5: 4096 * 8 / 9, 8: 1032, 32946: 1032, 32773: 64, 50000: 32768 }

/** Thrown when a block decodes to more or fewer bytes than announced, or is corrupt. */
export class BlockError extends Error {}

/**
 * `data` decompressed with `compression`: its first `want` bytes, of a block that announces `full`
 * (want ≤ full). Where want is the whole block, data that expands past it is refused; otherwise
 * decoding stops once `want` bytes are out.
 */
export async function decompress(compression: number, data: Uint8Array, want: number, full: number, signal?: AbortSignal): Promise<Uint8Array> {
  switch (compression) {
    case 1:
      if (data.length < want) throw new BlockError(`holds ${data.length} bytes, ${want} expected`)
      return data.subarray(0, want)
    case 8:
    case 32946:
      return inflate(data, want, full, signal)
    case 50000:
      return unzstd(data, want, full, signal)
    case 5:
      return sliced(lzw(data, want, full), signal)
    case 32773:
      return sliced(packBits(data, want, full), signal)
  }
  throw new BlockError(`compression ${compression} is not read`)
}

async function sliced(work: Generator<void, Uint8Array>, signal?: AbortSignal): Promise<Uint8Array> {
  const turns = new Turns(signal)
  for (;;) {
    const next = work.next()
    if (next.done) return next.value
    await turns.maybe()
  }
}

function short(what: string, got: number, expected: number): BlockError {
  return new BlockError(`${what} gives ${got} bytes, ${expected} expected: the data is cut short`)
}

function bomb(expected: number): BlockError {
  return new BlockError(`expands past the ${expected} bytes its IFD announces (a compression bomb?)`)
}

/** Collects decoded pieces into `want` bytes; says when to stop, and refuses output past the block. */
class Sink {
  readonly out: Uint8Array
  o = 0
  constructor(
    readonly want: number,
    readonly full: number,
  ) {
    this.out = new Uint8Array(want)
  }

  /** Takes a piece; true once `want` bytes are in and decoding can stop. */
  take(piece: Uint8Array): boolean {
    const room = this.want - this.o
    if (piece.length > room && this.want === this.full) throw bomb(this.full)
    this.out.set(piece.length > room ? piece.subarray(0, room) : piece, this.o)
    this.o += Math.min(room, piece.length)
    return this.o === this.want && this.want < this.full
  }
}

/** Inflates on zlib's threads, 64 KiB at a time, stopping at `want` bytes. */
function inflate(data: Uint8Array, want: number, full: number, signal?: AbortSignal): Promise<Uint8Array> {
  const sink = new Sink(want, full)
  return new Promise<Uint8Array>((resolve, reject) => {
    const z = createInflate({ chunkSize: 64 * 1024 })
    let settled = false
    const end = (e?: Error) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', abort)
      z.destroy()
      if (e) reject(e)
      else if (sink.o < want) reject(short('deflate', sink.o, want))
      else resolve(sink.out)
    }
    const abort = () => end(new Error('cancelled'))
    signal?.addEventListener('abort', abort)
    z.on('data', (piece: Buffer) => {
      if (settled) return
      try {
        if (sink.take(piece)) end()
      } catch (e) {
        end(e as Error)
      }
    })
    z.on('end', () => end())
    // All the bytes wanted, then an error (a stream cut before its checksum): libtiff takes them too.
    z.on('error', (e) => end(sink.o >= want ? undefined : new BlockError(`is not valid deflate data (${e.message})`)))
    z.end(data)
  }).catch((e) => {
    throwIfAborted(signal)
    throw e
  })
}

const zstd = new ZSTDDecoder()
let zstdReady: Promise<void> | undefined

/** ZSTD a window (128 KiB) at a time, stopping at `want` bytes. */
async function unzstd(data: Uint8Array, want: number, full: number, signal?: AbortSignal): Promise<Uint8Array> {
  await (zstdReady ??= zstd.init())
  const sink = new Sink(want, full)
  const turns = new Turns(signal)
  // zstddec's stream neither reports a corrupt frame (it calls again on the same input) nor frees
  // its buffers when left early: empty windows in a row mean the decoder is stuck.
  let empty = 0
  try {
    for (const piece of zstd.decodeStreaming([data])) {
      if (piece.length === 0) {
        if (++empty > 64) throw new BlockError('is not valid ZSTD data (the decoder makes no progress)')
        continue
      }
      empty = 0
      if (sink.take(piece)) return sink.out
      await turns.maybe()
    }
  } catch (e) {
    if (e instanceof BlockError) throw e
    throwIfAborted(signal)
    if (sink.o < want) throw new BlockError(`is not valid ZSTD data (${(e as Error).message})`)
  }
  if (sink.o < want) throw short('ZSTD', sink.o, want)
  return sink.out
}

/** Every this many input bytes or codes, a decoder yields (a slice ends there if its time is up). */
const SLICE = 1 << 16

function* packBits(data: Uint8Array, want: number, full: number): Generator<void, Uint8Array> {
  const expected = full
  const out = new Uint8Array(full)
  let o = 0
  let i = 0
  let k = 0
  while (i < data.length && o < want) {
    if (++k % SLICE === 0) yield
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
  if (o < want) throw short('PackBits', o, want)
  return out.subarray(0, want)
}

/** TIFF's LZW: codes of 9 to 12 bits, most significant bit first, the width growing one code early. */
function* lzw(data: Uint8Array, want: number, full: number): Generator<void, Uint8Array> {
  const expected = full
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
  // The wanted rows, and room for the one code that crosses their end.
  const out = new Uint8Array(Math.min(full, want + 4096))
  let o = 0
  let bit = 0
  let k = 0
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
  while (o < want) {
    if (++k % SLICE === 0) yield
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
  if (o < want) throw short('LZW', o, want)
  return out.subarray(0, want)
}

/**
 * Undoes a TIFF predictor in place over `rows` rows of `width` samples of `bytes` bytes each:
 * 2 adds each sample's bits, as an integer of its size, to the one before it (in the file's byte
 * order; floats' bit patterns too, as libtiff does); 3 (floating point) adds byte to byte, then
 * regathers each sample's bytes from their planes, last plane first, which leaves them little-endian
 * (the reader refuses it in big-endian files, whose writers disagree).
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
