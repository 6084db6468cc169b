// A bounded reader of the FlatBuffers tables Arrow's metadata is made of: every offset, vector
// length and value is checked against the message's bytes before it is followed, so metadata from
// a file can neither point outside itself nor announce vectors longer than its bytes (a library
// reader loops over such a length, or throws its own errors on 64-bit values).

/** Thrown with a message the caller places (file, message at byte B). */
export class MetadataError extends Error {}

export class FbTable {
  constructor(
    readonly view: DataView,
    readonly pos: number,
  ) {}

  static root(bytes: Uint8Array): FbTable {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    return new FbTable(view, at(view, 0, u32(view, 0), 'the root table'))
  }

  /** Position of field `slot`'s value, or undefined when absent. */
  private field(slot: number): number | undefined {
    const vtable = this.pos - i32(this.view, this.pos)
    const size = u16(this.view, vtable)
    if (size < 4 || size % 2) throw new MetadataError(`a table's field list announces ${size} bytes`)
    const o = 4 + 2 * slot
    if (o + 2 > size) return undefined
    const off = u16(this.view, vtable + o)
    return off === 0 ? undefined : this.pos + off
  }

  u8(slot: number, otherwise = 0): number {
    const p = this.field(slot)
    return p === undefined ? otherwise : u8(this.view, p)
  }

  i16(slot: number, otherwise = 0): number {
    const p = this.field(slot)
    return p === undefined ? otherwise : (u16(this.view, p) << 16) >> 16
  }

  /** A 64-bit integer as a BigInt (the caller bounds it). */
  i64(slot: number, otherwise = 0n): bigint {
    const p = this.field(slot)
    return p === undefined ? otherwise : bytesAt(this.view, p, 8) && this.view.getBigInt64(p, true)
  }

  table(slot: number): FbTable | undefined {
    const p = this.field(slot)
    return p === undefined ? undefined : new FbTable(this.view, at(this.view, p, u32(this.view, p), 'a table'))
  }

  /** A vector's first element's position and its length, checked to lie within the bytes. */
  vector(slot: number, elementBytes: number): { start: number; length: number } {
    const p = this.field(slot)
    if (p === undefined) return { start: 0, length: 0 }
    const v = at(this.view, p, u32(this.view, p), 'a vector')
    const length = u32(this.view, v)
    if (v + 4 + length * elementBytes > this.view.byteLength)
      throw new MetadataError(`a vector announces ${length} elements of ${elementBytes} bytes; the metadata holds ${this.view.byteLength} bytes`)
    return { start: v + 4, length }
  }

  /** The k-th table of a vector of tables. */
  tableAt(vec: { start: number }, k: number): FbTable {
    const p = vec.start + 4 * k
    return new FbTable(this.view, at(this.view, p, u32(this.view, p), 'a table'))
  }

  /** A vector of 64-bit integers, as BigInts. */
  i64s(slot: number): bigint[] {
    const { start, length } = this.vector(slot, 8)
    return Array.from({ length }, (_, k) => this.view.getBigInt64(start + 8 * k, true))
  }
}

function bytesAt(view: DataView, p: number, n: number): true {
  if (p < 0 || p + n > view.byteLength) throw new MetadataError(`an offset (${p}) points outside the ${view.byteLength} bytes of metadata`)
  return true
}
const u8 = (view: DataView, p: number) => bytesAt(view, p, 1) && view.getUint8(p)
const u16 = (view: DataView, p: number) => bytesAt(view, p, 2) && view.getUint16(p, true)
const u32 = (view: DataView, p: number) => bytesAt(view, p, 4) && view.getUint32(p, true)
const i32 = (view: DataView, p: number) => bytesAt(view, p, 4) && view.getInt32(p, true)
function at(view: DataView, base: number, offset: number, what: string): number {
  const p = base + offset
  if (p + 4 > view.byteLength) throw new MetadataError(`${what} at offset ${p} lies outside the ${view.byteLength} bytes of metadata`)
  return p
}
