// Page decompression, bounded by what the page header announces: the output buffer is the
// announced size and never grows, a stream that would expand past it is refused, and one whose
// own header (snappy's length, zstd's frame content size) or whose output disagrees with the page
// header is refused too. Snappy and zstd in WebAssembly (hysnappy through hyparquet-compressors;
// zstddec, the zstd library itself, five times fzstd's speed here), gzip and brotli through zlib,
// LZ4 in lz4.ts.
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { compressors } from 'hyparquet-compressors'
import { ZSTDDecoder } from 'zstddec'
import { lz4Frame, lz4Hadoop, lz4Raw } from '../lz4'

const zstd = new ZSTDDecoder()
let zstdReady: Promise<void> | undefined

/** Loads the zstd decoder (WebAssembly) once per thread; call before decompress. */
export function codecsReady(): Promise<void> {
  zstdReady ??= zstd.init()
  return zstdReady
}

export const SUPPORTED_CODECS = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'ZSTD', 'BROTLI', 'LZ4', 'LZ4_RAW'] as const

export function codecSupported(codec: string): boolean {
  return (SUPPORTED_CODECS as readonly string[]).includes(codec)
}

/** Thrown with a message the caller places (file, row group, column, page). */
export class PageError extends Error {}

/** The page's bytes, `size` of them, from its compressed `input` (LZ4_FRAME: an Arrow IPC buffer's codec). */
export function decompress(codec: string, input: Uint8Array, size: number): Uint8Array {
  switch (codec) {
    case 'UNCOMPRESSED':
      if (input.length !== size) throw new PageError(`an uncompressed page of ${input.length} bytes announces ${size}`)
      return input
    case 'SNAPPY': {
      const said = snappyLength(input)
      if (said !== size) throw new PageError(`the snappy stream says it expands to ${said} bytes; the page header announces ${size}`)
      // The stream's own length, checked above, is the output room the decoder is given.
      try {
        return compressors.SNAPPY!(input, size)
      } catch (e) {
        throw new PageError(`snappy data is corrupt: ${(e as Error).message}`)
      }
    }
    case 'GZIP':
    case 'BROTLI': {
      const name = codec === 'GZIP' ? 'gzip' : 'brotli'
      let out: Buffer
      try {
        const limit = { maxOutputLength: Math.max(size, 1) }
        out = codec === 'GZIP' ? gunzipSync(input, limit) : brotliDecompressSync(input, limit)
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        if (code === 'ERR_BUFFER_TOO_LARGE') throw new PageError(`${name} data expands past the ${size} bytes the page header announces`)
        throw new PageError(`${name} data is corrupt: ${(e as Error).message}`)
      }
      if (out.length !== size) throw new PageError(`${name} data expands to ${out.length} bytes; the page header announces ${size}`)
      return out
    }
    case 'LZ4_RAW':
    case 'LZ4':
    case 'LZ4_FRAME':
      try {
        return (codec === 'LZ4_RAW' ? lz4Raw : codec === 'LZ4' ? lz4Hadoop : lz4Frame)(input, size)
      } catch (e) {
        throw new PageError((e as Error).message)
      }
    case 'ZSTD': {
      const said = zstdContentSize(input)
      if (said !== undefined && said !== size) throw new PageError(`the zstd frame says it expands to ${said} bytes; the page header announces ${size}`)
      // The decoder's output room is the announced size: zstd stops with an error rather than
      // write past it, and stops short when the data ends first.
      let out: Uint8Array
      try {
        out = zstd.decode(input, Math.max(size, 1))
      } catch (e) {
        throw new PageError(`zstd data is corrupt: ${(e as Error).message}`)
      }
      if (out.length !== size) throw new PageError(`zstd data does not expand to the ${size} bytes the page header announces`)
      return out
    }
    default:
      throw new PageError(`compression ${codec} is not supported`)
  }
}

/** The uncompressed length snappy streams start with (a varint). */
function snappyLength(input: Uint8Array): number {
  let value = 0
  for (let i = 0, shift = 0; i < Math.min(input.length, 5); i++, shift += 7) {
    value += (input[i] & 0x7f) * 2 ** shift
    if (input[i] < 0x80) return value
  }
  throw new PageError('snappy data is corrupt: no length at its start')
}

/** The Frame_Content_Size of a zstd frame header, when the frame states it. */
function zstdContentSize(input: Uint8Array): number | undefined {
  if (input.length < 6 || input[0] !== 0x28 || input[1] !== 0xb5 || input[2] !== 0x2f || input[3] !== 0xfd) throw new PageError('zstd data is corrupt: no zstd frame at its start')
  const fhd = input[4]
  const fcsFlag = fhd >> 6
  const single = (fhd >> 5) & 1
  const dictBytes = [0, 1, 2, 4][fhd & 3]
  const fcsBytes = fcsFlag === 0 ? single : 1 << fcsFlag
  if (fcsBytes === 0) return undefined
  let at = 5 + (single ? 0 : 1) + dictBytes
  if (at + fcsBytes > input.length) throw new PageError('zstd data is corrupt: its frame header is cut')
  let value = 0
  for (let k = 0; k < fcsBytes; k++) value += input[at++] * 2 ** (8 * k)
  return fcsBytes === 2 ? value + 256 : value
}
