// Classic NetCDF files (CDF-1, the 64-bit offset CDF-2 and the 64-bit data CDF-5): the header
// parsed here, every count checked against the bytes left before anything is built from it (a
// header may announce 2^32 dimensions in 20 bytes), and a variable's rows read a bounded piece at
// a time from where the header places them, after checking that place lies inside the file.
// (netcdfjs reads CDF-1 and CDF-2 only, and wants the whole file in memory.)
import type { FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import { type AttrValue, type Beyond, type DatasetInfo, MAX_STRING_BYTES, MAX_STRINGS, type NumericDtype, netcdfRule, ruleMatters } from './datasets'
import { ElementReader } from './elements'

/** Bytes read at once across interleaved records at most. */
const SPAN_BYTES = 8 * 1024 * 1024

/** The largest header read. */
const MAX_HEADER_BYTES = 64 * 1024 * 1024

const TYPES: Record<number, { dtype: string; bytes: number }> = {
  1: { dtype: 'int8', bytes: 1 },
  2: { dtype: 'char', bytes: 1 },
  3: { dtype: 'int16', bytes: 2 },
  4: { dtype: 'int32', bytes: 4 },
  5: { dtype: 'float32', bytes: 4 },
  6: { dtype: 'float64', bytes: 8 },
  7: { dtype: 'uint8', bytes: 1 },
  8: { dtype: 'uint16', bytes: 2 },
  9: { dtype: 'uint32', bytes: 4 },
  10: { dtype: 'int64', bytes: 8 },
  11: { dtype: 'uint64', bytes: 8 },
}

export interface NetcdfVariable {
  info: DatasetInfo
  itemBytes: number
  /** Byte offset of its data (of its first record's, for a record variable). */
  begin: number
  /** Its first dimension is the record (unlimited) dimension: row r lies at begin + r × recordBytes. */
  record: boolean
}

export interface NetcdfHeader {
  version: 1 | 2 | 5
  variables: NetcdfVariable[]
  /** Bytes from one record to the next. */
  recordBytes: number
}

class OutOfHeader extends Error {}

/** A cursor over the header's bytes; running out throws OutOfHeader (the caller reads more). */
class Cursor {
  at = 0
  constructor(
    readonly b: Buffer,
    readonly wide: boolean,
  ) {}
  need(n: number): void {
    if (this.at + n > this.b.length) throw new OutOfHeader()
  }
  u32(): number {
    this.need(4)
    const v = this.b.readUInt32BE(this.at)
    this.at += 4
    return v
  }
  u64(): number {
    this.need(8)
    const v = this.b.readBigUInt64BE(this.at)
    this.at += 8
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`a size of ${v}`)
    return Number(v)
  }
  /** A count or length: 8 bytes in CDF-5, 4 before. */
  count(): number {
    return this.wide ? this.u64() : this.u32()
  }
  /** `n` items of at least `least` bytes each must fit in what is left of the file. */
  items(n: number, least: number, size: number, what: string): number {
    if (n * least > size - this.at) throw new RangeError(`${n} ${what} announced at byte ${this.at}; the file has ${size} bytes`)
    return n
  }
  skip(n: number): void {
    this.need(n)
    this.at += n
  }
  name(size: number): string {
    const n = this.items(this.count(), 1, size, 'name bytes')
    this.need(n)
    const text = this.b.toString('utf8', this.at, this.at + n)
    this.at += pad4(n)
    return text
  }
}

const pad4 = (n: number) => Math.ceil(n / 4) * 4

/** The header of a classic NetCDF file; errors name `shown`. */
export async function readNetcdfHeader(shown: string, file: FileHandle, size: number): Promise<NetcdfHeader> {
  for (let want = Math.min(size, 64 * 1024); ; want = Math.min(size, want * 8)) {
    const b = Buffer.alloc(want)
    await file.read(b, 0, want, 0)
    try {
      return parseHeader(b, size)
    } catch (e) {
      if (e instanceof OutOfHeader) {
        if (want < size && want < MAX_HEADER_BYTES) continue
        throw new ApiError('invalid-input', `${shown}: the NetCDF header is cut short (truncated file of ${size} bytes?)`)
      }
      throw new ApiError('invalid-input', `${shown}: not a readable NetCDF file: ${(e as Error).message}`)
    }
  }
}

function parseHeader(b: Buffer, size: number): NetcdfHeader {
  const version = b[3]
  if (b.toString('latin1', 0, 3) !== 'CDF' || (version !== 1 && version !== 2 && version !== 5)) throw new RangeError('no CDF magic')
  const c = new Cursor(b, version === 5)
  c.at = 4
  const numrecs = c.wide ? readStreaming64(c) : c.u32()
  // Dimensions.
  const dims: { name: string; length: number }[] = []
  let recordDim = -1
  listOf(c, 0x0a, size, 'dimensions', () => {
    const name = c.name(size)
    const length = c.count()
    if (length === 0) recordDim = dims.length
    dims.push({ name, length })
  })
  listOf(c, 0x0c, size, 'global attributes', () => skipAttribute(c, size))
  const raw: { name: string; dimIds: number[]; type: number; begin: number; attrs: Map<string, AttrValue> }[] = []
  listOf(c, 0x0b, size, 'variables', () => {
    const name = c.name(size)
    const rank = c.items(c.count(), c.wide ? 8 : 4, size, 'dimensions of a variable')
    const dimIds: number[] = []
    for (let i = 0; i < rank; i++) {
      const id = c.count()
      if (id >= dims.length) throw new RangeError(`variable "${name}" names dimension ${id}; there are ${dims.length}`)
      dimIds.push(id)
    }
    const attrs = new Map<string, AttrValue>()
    listOf(c, 0x0c, size, 'attributes', () => skipAttribute(c, size, attrs))
    const type = c.u32()
    c.count() // vsize: recomputed from the shape (it saturates for large variables)
    const begin = version === 1 ? c.u32() : c.u64()
    raw.push({ name, dimIds, type, begin, attrs })
  })
  const recordVars = raw.filter((v) => v.dimIds[0] === recordDim && recordDim >= 0)
  const perRecord = (v: (typeof raw)[number]) => v.dimIds.slice(1).reduce((p, id) => p * dims[id].length, 1) * (TYPES[v.type]?.bytes ?? 0)
  // One record variable: its records follow each other unpadded; several: each padded to 4 bytes.
  const recordBytes = recordVars.length === 1 ? perRecord(recordVars[0]) : recordVars.reduce((s, v) => s + pad4(perRecord(v)), 0)
  const firstRecord = Math.min(...recordVars.map((v) => v.begin))
  // A file being written (streaming) gives no count: the records the file holds.
  const records = numrecs >= 0 ? numrecs : recordBytes > 0 ? Math.floor((size - firstRecord) / recordBytes) : 0
  // A coordinate variable: named as its first dimension (xarray's rule; a character array's second dimension is its strings' length).
  const byName = new Map(raw.map((v) => [v.name, v]))
  const coordinateOf = (dimId: number, self: string) => {
    const c = byName.get(dims[dimId].name)
    return c && c.name !== self && c.dimIds[0] === dimId && (c.dimIds.length === 1 || (c.dimIds.length === 2 && TYPES[c.type]?.dtype === 'char')) ? `/${c.name}` : null
  }
  const variables = raw.map((v): NetcdfVariable => {
    const type = TYPES[v.type]
    const record = recordDim >= 0 && v.dimIds[0] === recordDim
    const shape = v.dimIds.map((id, i) => (record && i === 0 ? records : dims[id].length))
    // netCDF4 reads a classic file with fill mode on: every type's default fill is a missing value, bytes' too.
    const rule = type && type.dtype !== 'char' ? netcdfRule(type.dtype as NumericDtype, (a) => v.attrs.get(a), 'all') : undefined
    const unreadable = !type ? `element type ${v.type} unknown` : type.dtype === 'char' ? 'text, not numbers' : v.dimIds.slice(1).includes(recordDim) ? 'record dimension not first' : typeof rule === 'string' ? rule : undefined
    const missing = ruleMatters(rule) ? rule : undefined
    const coordinates = v.dimIds.map((id) => coordinateOf(id, v.name))
    return {
      info: {
        path: `/${v.name}`,
        shape,
        dtype: type?.dtype ?? `type ${v.type}`,
        ...(unreadable && { unreadable }),
        ...(missing && { missing }),
        ...(coordinates.some((c) => c !== null) && { coordinates }),
      },
      itemBytes: type?.bytes ?? 0,
      begin: v.begin,
      record,
    }
  })
  return { version: version as 1 | 2 | 5, variables, recordBytes }
}

function readStreaming64(c: Cursor): number {
  c.need(8)
  const v = c.b.readBigUInt64BE(c.at)
  c.at += 8
  return v === 0xffffffffffffffffn ? -1 : Number(v)
}

/** A tagged list (ABSENT is a zero tag and count). */
function listOf(c: Cursor, tag: number, size: number, what: string, item: () => void): void {
  const t = c.u32()
  const n = c.count()
  if (t === 0 && n === 0) return
  if (t !== tag) throw new RangeError(`the list of ${what} has tag ${t} at byte ${c.at}`)
  // Every item takes at least 8 bytes.
  c.items(n, 8, size, what)
  for (let i = 0; i < n; i++) item()
}

/** The attributes that say which cells hold no value (a handful of numbers each); the rest are skipped. */
const KEPT_ATTRIBUTES = new Set(['_FillValue', 'missing_value', 'valid_min', 'valid_max', 'valid_range', 'scale_factor', 'add_offset', '_Unsigned'])

function skipAttribute(c: Cursor, size: number, kept?: Map<string, AttrValue>): void {
  const name = c.name(size)
  const code = c.u32()
  const type = TYPES[code]
  if (!type) throw new RangeError(`an attribute of unknown type at byte ${c.at}`)
  const n = c.items(c.count(), type.bytes, size, 'attribute values')
  c.need(pad4(n * type.bytes))
  if (kept && KEPT_ATTRIBUTES.has(name) && n <= 16) {
    const b = c.b.subarray(c.at, c.at + n * type.bytes)
    if (type.dtype === 'char') kept.set(name, { dtype: 'text', values: [], text: b.toString('latin1').replace(/\0+$/, '') })
    else {
      // 64-bit integers exactly, as bigints: a fill value beyond ±2^53 is matched exactly.
      const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
      const values = Array.from({ length: n }, (_, k): number | bigint =>
        type.dtype === 'int64' ? view.getBigInt64(8 * k) : type.dtype === 'uint64' ? view.getBigUint64(8 * k) : new ElementReader(type.dtype as NumericDtype, false).read(view, k * type.bytes, k))
      kept.set(name, { dtype: type.dtype, values })
    }
  }
  c.skip(pad4(n * type.bytes))
}

/** Values of one row (first index) of a variable: the product of its other dimensions. */
export function rowItems(v: NetcdfVariable): number {
  return v.info.shape.slice(1).reduce((p, n) => p * n, 1)
}

/** Refuses a variable whose data, where the header places it, would run past the end of the file. */
export function checkInFile(shown: string, header: NetcdfHeader, v: NetcdfVariable, size: number): void {
  const rows = v.info.shape.length === 0 ? 1 : v.info.shape[0]
  const rowBytes = rowItems(v) * v.itemBytes
  const end = v.record ? v.begin + Math.max(0, rows - 1) * header.recordBytes + rowBytes : v.begin + rows * rowBytes
  if (rows > 0 && end > size)
    throw new ApiError('invalid-input', `${shown}: variable ${v.info.path} (${v.info.dtype}, ${v.info.shape.join(' × ')}) announces data up to byte ${end}; the file has ${size} (truncated?)`)
}

/** Rows [first, first + count) of a variable, as numbers, and its 64-bit integers beyond ±2^53. */
export async function readNetcdfRows(file: FileHandle, header: NetcdfHeader, v: NetcdfVariable, first: number, count: number): Promise<{ values: Float64Array; beyond: Beyond }> {
  const per = rowItems(v)
  const rowBytes = per * v.itemBytes
  const out = new Float64Array(count * per)
  const reader = new ElementReader(v.info.dtype as NumericDtype, false)
  if (!v.record) {
    const bytes = Buffer.alloc(count * rowBytes)
    await readFully(file, bytes, v.begin + first * rowBytes)
    reader.readAll(bytes, out)
    return { values: out, beyond: reader.beyond }
  }
  // Records interleave the record variables: a read spans several records, each row picked from
  // it, with at most SPAN_BYTES read at once (other variables' records may be far larger than this one's).
  const together = Math.max(1, Math.floor((SPAN_BYTES - rowBytes) / Math.max(1, header.recordBytes)) + 1)
  for (let r0 = 0; r0 < count; r0 += together) {
    const rows = Math.min(together, count - r0)
    const span = Buffer.alloc((rows - 1) * header.recordBytes + rowBytes)
    await readFully(file, span, v.begin + (first + r0) * header.recordBytes)
    const view = new DataView(span.buffer, span.byteOffset, span.byteLength)
    for (let r = 0, o = r0 * per; r < rows; r++)
      for (let k = 0, b = r * header.recordBytes; k < per; k++, b += v.itemBytes, o++) out[o] = reader.read(view, b, o)
  }
  return { values: out, beyond: reader.beyond }
}

/**
 * The strings of a 2-D character variable, a row each (trailing NULs dropped, UTF-8), as
 * netCDF4-python's chartostring gives them; the header's shape bounds what is read.
 */
export async function readNetcdfStrings(shown: string, file: FileHandle, header: NetcdfHeader, v: NetcdfVariable): Promise<string[]> {
  const [rows, width] = v.info.shape
  const where = `${shown}: variable ${v.info.path} (${v.info.dtype}, ${v.info.shape.join(' × ')})`
  if (v.info.dtype !== 'char' || v.info.shape.length !== 2) throw new ApiError('invalid-input', `${where}: names are a 2-D character variable, a name a row`)
  if (rows > MAX_STRINGS) throw new ApiError('invalid-input', `${where}: ${rows} names; at most ${MAX_STRINGS} are read`)
  if (width > MAX_STRING_BYTES) throw new ApiError('invalid-input', `${where}: strings of ${width} bytes; a name has at most ${MAX_STRING_BYTES}`)
  const out: string[] = []
  const row = Buffer.alloc(width)
  const all = v.record ? null : Buffer.alloc(rows * width)
  if (all) await readFully(file, all, v.begin)
  for (let r = 0; r < rows; r++) {
    const b = all ? all.subarray(r * width, (r + 1) * width) : row
    if (!all) await readFully(file, row, v.begin + r * header.recordBytes)
    const end = b.indexOf(0)
    out.push(b.toString('utf8', 0, end < 0 ? width : end))
  }
  return out
}

async function readFully(file: FileHandle, b: Buffer, at: number): Promise<void> {
  let got = 0
  while (got < b.length) {
    const { bytesRead } = await file.read(b, got, b.length - got, at + got)
    if (bytesRead === 0) throw new RangeError('the file got shorter while it was read')
    got += bytesRead
  }
}
