// The skeleton of a TIFF file, checked before any library parses it: the header, the first image
// file directory (IFD) and every entry's values lie inside the file, each entry's field type is
// known. A TIFF decoder trusts these offsets and counts (and allocates by them); a hostile file
// is refused here, naming the byte and the tag, before that can happen.
import type { FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'

/** Bytes of each TIFF field type (1 BYTE … 18 IFD8). */
const FIELD_BYTES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 }

/** Names of the tags messages mention. */
export const TAG_NAMES: Record<number, string> = {
  256: 'ImageWidth',
  257: 'ImageLength',
  258: 'BitsPerSample',
  259: 'Compression',
  273: 'StripOffsets',
  277: 'SamplesPerPixel',
  278: 'RowsPerStrip',
  279: 'StripByteCounts',
  284: 'PlanarConfiguration',
  317: 'Predictor',
  322: 'TileWidth',
  323: 'TileLength',
  324: 'TileOffsets',
  325: 'TileByteCounts',
  339: 'SampleFormat',
  254: 'NewSubfileType',
  266: 'FillOrder',
  42112: 'GDAL_METADATA',
  33550: 'ModelPixelScale',
  33922: 'ModelTiepoint',
  34264: 'ModelTransformation',
  34735: 'GeoKeyDirectory',
  34736: 'GeoDoubleParams',
  34737: 'GeoAsciiParams',
  42113: 'GDAL_NODATA',
}

export const tagName = (tag: number) => `${TAG_NAMES[tag] ?? 'tag'} (${tag})`

/** An IFD of more entries than this is no raster's (GDAL writes a few dozen). */
const MAX_ENTRIES = 4096

export interface TiffStructure {
  littleEndian: boolean
  bigTiff: boolean
  size: number
  ifdOffset: number
  /** Each entry: its tag, field type, value count and where its values lie. */
  entries: { tag: number; type: number; count: number; at: number }[]
}

/** A message naming the file and the place in it. */
export function tiffError(file: string, place: string | undefined, message: string): ApiError {
  return new ApiError('invalid-input', `${file}: ${place ? `${place}: ` : ''}${message}`)
}

async function readExactly(file: FileHandle, at: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length)
  let got = 0
  while (got < length) {
    const { bytesRead } = await file.read(buf, got, length - got, at + got)
    if (bytesRead === 0) break
    got += bytesRead
  }
  return buf.subarray(0, got)
}

/** Reads and checks the header and the first IFD of `file` (`size` bytes), named `shown` in messages. */
export async function tiffStructure(shown: string, file: FileHandle, size: number): Promise<TiffStructure> {
  const head = await readExactly(file, 0, Math.min(16, size))
  const order = head.subarray(0, 2).toString('latin1')
  if (head.length < 8 || (order !== 'II' && order !== 'MM')) throw tiffError(shown, undefined, `not a TIFF file (it begins ${JSON.stringify(head.subarray(0, 4).toString('latin1'))}, a TIFF "II*" or "MM*")`)
  const le = order === 'II'
  const magic = le ? head.readUInt16LE(2) : head.readUInt16BE(2)
  if (magic !== 42 && magic !== 43) throw tiffError(shown, 'header', `version ${magic} is neither TIFF (42) nor BigTIFF (43)`)
  const big = magic === 43
  if (big && head.length < 16) throw tiffError(shown, 'header', 'the BigTIFF header is cut short (16 bytes)')
  const u16 = (b: Buffer, at: number) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at))
  const u32 = (b: Buffer, at: number) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at))
  const u64 = (b: Buffer, at: number) => Number(le ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at))
  const ifdOffset = big ? u64(head, 8) : u32(head, 4)
  const headerBytes = big ? 16 : 8
  const countBytes = big ? 8 : 2
  const entryBytes = big ? 20 : 12
  const place = `IFD at byte ${ifdOffset}`
  if (ifdOffset < headerBytes || ifdOffset + countBytes > size) throw tiffError(shown, place, `lies ${ifdOffset < headerBytes ? 'inside the header' : `past the end of the file (${size} bytes)`}`)
  const countBuf = await readExactly(file, ifdOffset, countBytes)
  const n = big ? u64(countBuf, 0) : u16(countBuf, 0)
  if (n === 0 || n > MAX_ENTRIES) throw tiffError(shown, place, `announces ${n} entries (a raster's IFD has 1 to ${MAX_ENTRIES})`)
  const end = ifdOffset + countBytes + n * entryBytes + (big ? 8 : 4)
  if (end > size) throw tiffError(shown, place, `its ${n} entries run past the end of the file (${end} bytes needed, the file has ${size})`)
  const table = await readExactly(file, ifdOffset + countBytes, n * entryBytes)
  const entries: TiffStructure['entries'] = []
  for (let i = 0; i < n; i++) {
    const e = i * entryBytes
    const tag = u16(table, e)
    const type = u16(table, e + 2)
    const count = big ? u64(table, e + 4) : u32(table, e + 4)
    const valueAt = ifdOffset + countBytes + e + (big ? 12 : 8)
    const bytes = FIELD_BYTES[type]
    if (bytes === undefined) throw tiffError(shown, `${place}, ${tagName(tag)}`, `unknown field type ${type}`)
    const length = bytes * count
    const at = length <= (big ? 8 : 4) ? valueAt : big ? u64(table, e + 12) : u32(table, e + 8)
    if (at + length > size) throw tiffError(shown, `${place}, ${tagName(tag)}`, `its ${count} values (${length} bytes at byte ${at}) run past the end of the file (${size} bytes)`)
    entries.push({ tag, type, count, at })
    // A 64-bit offset or size past 2^53 is no file's (and no double holds it exactly): named here,
    // before the geotiff package reads the arrays it parses at once (a few; longer ones are read later).
    if ((type === 16 || type === 18) && count <= 1024) {
      const values = count === 1 ? table.subarray(e + 12, e + 20) : await readExactly(file, at, length)
      for (let k = 0; k < count; k++) {
        const v = le ? values.readBigUInt64LE(8 * k) : values.readBigUInt64BE(8 * k)
        if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw tiffError(shown, `${place}, ${tagName(tag)}`, `value ${k}, ${v}, is past any file's size (2^53 bytes)`)
      }
    }
  }
  return { littleEndian: le, bigTiff: big, size, ifdOffset, entries }
}

/**
 * An entry's integer values (SHORT, LONG, LONG8), read in the file's byte order: the block offsets
 * and byte counts, read here because the geotiff package's deferred arrays assume little-endian.
 */
export async function entryIntegers(file: FileHandle, s: TiffStructure, tag: number): Promise<Float64Array | undefined> {
  const e = s.entries.find((x) => x.tag === tag)
  if (!e) return undefined
  const size = e.type === 3 ? 2 : e.type === 4 || e.type === 13 ? 4 : e.type === 16 || e.type === 18 ? 8 : 0
  if (size === 0) throw new TypeError(`${tagName(tag)} has field type ${e.type}, not an unsigned integer`)
  const buf = await readExactly(file, e.at, e.count * size)
  const le = s.littleEndian
  const out = new Float64Array(e.count)
  for (let i = 0; i < e.count; i++) {
    const at = i * size
    out[i] = size === 2 ? (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at)) : size === 4 ? (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at)) : Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at))
  }
  return out
}

/** An ASCII entry's text (NULs at its end dropped), or undefined when the IFD has none. */
export async function entryText(file: FileHandle, s: TiffStructure, tag: number): Promise<string | undefined> {
  const e = s.entries.find((x) => x.tag === tag)
  if (!e || e.type !== 2) return undefined
  return (await readExactly(file, e.at, e.count)).toString('latin1').replace(/\0+$/, '')
}

/** IFDs after the first read at most: a COG holds one per overview and mask, a few dozen. */
const MAX_LATER_IFDS = 256

/**
 * The IFDs after the first (overviews, masks), each with its NewSubfileType and size; the chain
 * is followed while it stays inside the file, moves forward or back without repeating, and its
 * entries fit, up to MAX_LATER_IFDS.
 */
export async function laterIfds(file: FileHandle, s: TiffStructure): Promise<{ at: number; subfileType: number; width: number; height: number }[]> {
  const big = s.bigTiff
  const le = s.littleEndian
  const countBytes = big ? 8 : 2
  const entryBytes = big ? 20 : 12
  const seen = new Set([s.ifdOffset])
  const out: { at: number; subfileType: number; width: number; height: number }[] = []
  const nextOf = async (at: number, n: number) => {
    const b = await readExactly(file, at + countBytes + n * entryBytes, big ? 8 : 4)
    if (b.length < (big ? 8 : 4)) return 0
    return big ? Number(le ? b.readBigUInt64LE(0) : b.readBigUInt64BE(0)) : le ? b.readUInt32LE(0) : b.readUInt32BE(0)
  }
  let next = await nextOf(s.ifdOffset, s.entries.length)
  while (next >= (big ? 16 : 8) && next + countBytes <= s.size && !seen.has(next) && out.length < MAX_LATER_IFDS) {
    seen.add(next)
    const head = await readExactly(file, next, countBytes)
    const n = big ? Number(le ? head.readBigUInt64LE(0) : head.readBigUInt64BE(0)) : le ? head.readUInt16LE(0) : head.readUInt16BE(0)
    if (n === 0 || n > MAX_ENTRIES || next + countBytes + n * entryBytes + (big ? 8 : 4) > s.size) break
    const table = await readExactly(file, next + countBytes, n * entryBytes)
    const value = (tag: number) => {
      for (let i = 0; i < n; i++) {
        const e = i * entryBytes
        if ((le ? table.readUInt16LE(e) : table.readUInt16BE(e)) !== tag) continue
        const type = le ? table.readUInt16LE(e + 2) : table.readUInt16BE(e + 2)
        const v = e + (big ? 12 : 8)
        return type === 3 ? (le ? table.readUInt16LE(v) : table.readUInt16BE(v)) : type === 4 ? (le ? table.readUInt32LE(v) : table.readUInt32BE(v)) : 0
      }
      return 0
    }
    out.push({ at: next, subfileType: value(254), width: value(256), height: value(257) })
    next = await nextOf(next, n)
  }
  return out
}
