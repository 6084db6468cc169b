// Two facts of a dataset's object header that the HDF5 library keeps from h5wasm's callers, read
// here from the file (HDF5 File Format Specification 3.0, §IV.A): the bits of its integer type (a
// type of 12 bits in 16, as the n-bit filter's users write, holds its value in `precision` bits at
// bit `offset`, sign-extended by h5py's conversion and raw in the library's copy of the type) and
// whether its fill value was set by the writer (H5Pfill_value_defined: netcdf-c reads a variable
// whose fill value is only the library's default as one of fill mode off). Every read is bounded
// and checked; anything not understood gives no facts, and the caller keeps its defaults.
import fs from 'node:fs'

export interface HeaderFacts {
  /** Integer types: the bits holding the value, where they are not the whole size. */
  bits?: { precision: number; offset: number }
  /** 'user': a fill value set by the writer; 'default': the library's (zeros); 'undefined': none. */
  fill?: 'user' | 'default' | 'undefined'
}

/** Reads `length` bytes at `at` (fewer at the end of the file). */
export type ReadAt = (at: number, length: number) => Buffer

export interface Superblock {
  base: number
  offsets: number
  lengths: number
}

const SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a])

/** The superblock's base address and sizes of offsets and lengths, searched at 0, 512, 1024, … as the library does. */
export function superblock(read: ReadAt, size: number): Superblock | undefined {
  for (let at = 0; at + 48 <= size; at = at === 0 ? 512 : at * 2) {
    const b = read(at, 48)
    if (b.length < 48 || !b.subarray(0, 8).equals(SIGNATURE)) continue
    const version = b[8]
    const [offsets, lengths, baseAt] = version <= 1 ? [b[13], b[14], version === 0 ? 24 : 28] : [b[9], b[10], 12]
    if (offsets !== 8 || lengths !== 8) return undefined
    return { base: Number(b.readBigUInt64LE(baseAt)), offsets, lengths }
  }
  return undefined
}

/** The object headers of the file at `path` (opened once, synchronously, as the library reads it); close after use. */
export function openHeaders(path: string): { facts(address: number): HeaderFacts; close(): void } {
  const fd = fs.openSync(path, 'r')
  const size = fs.fstatSync(fd).size
  const read: ReadAt = (at, length) => {
    const b = Buffer.alloc(Math.max(0, Math.min(length, size - at)))
    if (b.length) fs.readSync(fd, b, 0, b.length, at)
    return b
  }
  const sb = superblock(read, size)
  return { facts: (address) => (sb ? headerFacts(read, sb, address) : {}), close: () => fs.closeSync(fd) }
}

/** Messages read at most from one header, and continuation blocks followed at most. */
const MAX_MESSAGES = 4096
const MAX_BLOCKS = 64
/** The largest header block read. */
const MAX_BLOCK = 1 << 20

/** The facts of the object header at `address` (relative to the superblock's base). */
export function headerFacts(read: ReadAt, sb: Superblock, address: number): HeaderFacts {
  const facts: HeaderFacts = {}
  try {
    const at = sb.base + address
    const head = read(at, 16)
    if (head.length < 16) return facts
    if (head.toString('latin1', 0, 4) === 'OHDR') {
      const flags = head[5]
      const p = 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0)
      const sizeBytes = 1 << (flags & 3)
      const n = read(at + p, sizeBytes)
      const length = sizeBytes === 1 ? n[0] : sizeBytes === 2 ? n.readUInt16LE(0) : sizeBytes === 4 ? n.readUInt32LE(0) : Number(n.readBigUInt64LE(0))
      walk(read, sb.base, [{ at: at + p + sizeBytes, length, v2: true }], flags & 4 ? 2 : 0, facts)
    } else if (head[0] === 1) walk(read, sb.base, [{ at: at + 16, length: head.readUInt32LE(8), v2: false }], 0, facts)
  } catch {
    return {}
  }
  return facts
}

/** Walks the messages of each block (continuations appended as they are met). */
function walk(read: ReadAt, base: number, blocks: { at: number; length: number; v2: boolean }[], orderBytes: number, facts: HeaderFacts): void {
  let seen = 0
  for (let k = 0; k < blocks.length && k < MAX_BLOCKS; k++) {
    const { at, length, v2 } = blocks[k]
    if (length > MAX_BLOCK) return
    // A v2 continuation block starts with "OCHK" and ends with a checksum; the first block's checksum follows it.
    const b = read(at, length)
    let p = v2 && k > 0 ? 4 : 0
    const end = v2 ? b.length - (k > 0 ? 4 : 0) : b.length
    while (p + (v2 ? 4 + orderBytes : 8) <= end && seen++ < MAX_MESSAGES) {
      const type = v2 ? b[p] : b.readUInt16LE(p)
      const size = v2 ? b.readUInt16LE(p + 1) : b.readUInt16LE(p + 2)
      const flags = v2 ? b[p + 3] : b[p + 4]
      p += v2 ? 4 + orderBytes : 8
      if (p + size > b.length) return
      const data = b.subarray(p, p + size)
      p += size
      // A shared message holds a reference to another header, not the message itself.
      if (flags & 2) continue
      if (type === 0x10 && size >= 16) blocks.push({ at: base + Number(data.readBigUInt64LE(0)), length: Number(data.readBigUInt64LE(8)), v2 })
      else if (type === 0x03) datatype(data, facts)
      else if (type === 0x05) fillValue(data, facts)
      else if (type === 0x04 && facts.fill === undefined && size >= 4) facts.fill = data.readUInt32LE(0) > 0 ? 'user' : 'default'
    }
  }
}

/** A fixed-point (integer) type's bit offset and precision, where they are not its whole size. */
function datatype(d: Buffer, facts: HeaderFacts): void {
  if (d.length < 12 || (d[0] & 0x0f) !== 0) return
  const size = d.readUInt32LE(4)
  const offset = d.readUInt16LE(8)
  const precision = d.readUInt16LE(10)
  if (offset !== 0 || precision !== size * 8) facts.bits = { precision, offset }
}

/** The fill value message (versions 1 to 3): whether a value was set, and by whom. */
function fillValue(d: Buffer, facts: HeaderFacts): void {
  const version = d[0]
  if (version === 1 || version === 2) {
    if (!d[3]) facts.fill = 'undefined'
    else facts.fill = d.length >= 8 && d.readUInt32LE(4) > 0 ? 'user' : 'default'
  } else if (version === 3) {
    const flags = d[1]
    facts.fill = flags & 0x20 ? (d.length >= 6 && d.readUInt32LE(2) > 0 ? 'user' : 'default') : flags & 0x10 ? 'undefined' : 'default'
  }
}
