// What a file is, from its first bytes (and, for Parquet, its last four): the format is decided by
// content, never by the name alone, so a Parquet file named .csv is read as Parquet, and a text
// file named .tif is refused as not a TIFF instead of being fed to a TIFF decoder.
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { ApiError } from '../../shared/errors'
import { headerFields } from '../../shared/csv'
import type { ContentKind } from '../../shared/formats'
import { notAFile } from './file-kind'

const HEAD_BYTES = 1024
const HDF5_MAGIC = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]

export interface Sniffed {
  kind: ContentKind
  bytes: number
  /** A text file's first line as CSV fields (those complete within the first KiB). */
  header?: string[]
}

/** Reads at most 1 KiB plus the last 4 bytes of `path`, a regular file (a FIFO is refused at once, not waited on). */
export async function sniffFile(path: string): Promise<Sniffed> {
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const s = await file.stat()
    if (!s.isFile()) throw new ApiError('invalid-input', `${path} is ${notAFile(s)}, not a data file`)
    const { size } = s
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size))
    await file.read(head, 0, head.length, 0)
    const tail = Buffer.alloc(Math.min(4, size))
    if (size > 0) await file.read(tail, 0, tail.length, size - tail.length)
    const kind = sniffBytes(head, tail, size)
    if (kind !== 'text') return { kind, bytes: size }
    const text = new TextDecoder('utf-8').decode(head.subarray(0, lastWholeChar(head)))
    return { kind, bytes: size, header: headerFields(text.replace(/^\uFEFF/, '').replace(/^([ \t]*\r?\n)+/, ''), head.length === size) }
  } finally {
    await file.close()
  }
}

/** The kind of content that `head` (the first bytes) and `tail` (the last four) show. */
export function sniffBytes(head: Uint8Array, tail: Uint8Array, size: number): ContentKind {
  if (size === 0) return 'empty'
  const at = (s: string, offset = 0) => s.length + offset <= head.length && [...s].every((c, i) => head[offset + i] === c.charCodeAt(0))
  if (at('II*\0') || at('MM\0*') || at('II+\0') || at('MM\0+')) return 'tiff'
  if (at('PAR1') && tail.length === 4 && String.fromCharCode(...tail) === 'PAR1') return 'parquet'
  if (at('ARROW1') || (head[0] === 0xff && head[1] === 0xff && head[2] === 0xff && head[3] === 0xff)) return 'arrow'
  if (HDF5_MAGIC.every((b, i) => head[i] === b)) return 'hdf5'
  if (at('CDF\x01') || at('CDF\x02') || at('CDF\x05')) return 'netcdf'
  if (at('\x93NUMPY')) return 'npy'
  if (at('%%MatrixMarket') || at('%%matrixmarket')) return 'mtx'
  return looksLikeText(head) ? 'text' : 'binary'
}

/** UTF-8 text without NUL or other control bytes than tab, CR, LF and form feed (a cut multi-byte
 * character at the end of the sample is allowed). */
function looksLikeText(head: Uint8Array): boolean {
  for (let i = 0; i < head.length; i++) {
    const b = head[i]
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) return false
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, lastWholeChar(head)))
    return true
  } catch {
    return false
  }
}

function lastWholeChar(b: Uint8Array): number {
  let end = b.length
  for (let k = 1; k <= 3 && end - k >= 0; k++) {
    const c = b[end - k]
    if ((c & 0xc0) === 0x80) continue
    if (c >= 0xc0) end -= k
    break
  }
  return end
}
