// The ranks' wire format: frames of a 12-byte header (payload length u32, kind u8, element type
// u8, two spare bytes, tag i32; little-endian) and the payload. Typed arrays travel as their raw
// bytes with their element type, so a receiver gets back the array that was sent.
import { ApiError } from '../../shared/errors'

export const HEADER_BYTES = 12

export const Kind = {
  /** A rank introduces itself on a new connection: JSON { rank, job, port }. */
  Hello: 1,
  /** Rank 0 tells each rank where every rank listens: JSON { hosts, ports }. */
  Table: 2,
  /** A typed array for the receiver, under a tag. */
  Data: 3,
  /** The sender failed: UTF-8 reason. Every rank then fails too. */
  Abort: 4,
  /** The sender finished normally and sends nothing more. */
  Bye: 5,
} as const
export type Kind = (typeof Kind)[keyof typeof Kind]

/** The typed arrays that travel, by their element type's code. */
const TYPES = [Uint8Array, Int8Array, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array] as const
export type RankArray = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array
export type RankArrayType<T extends RankArray = RankArray> = { new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T; readonly name: string; BYTES_PER_ELEMENT: number }

function typeCode(data: RankArray): number {
  const code = TYPES.findIndex((t) => data instanceof (t as unknown as RankArrayType))
  if (code < 0) throw new ApiError('internal', 'ranks send typed arrays of numbers only')
  return code
}

/** One frame: header and a copy of the payload (the caller may reuse its array at once). */
export function frame(kind: Kind, tag: number, payload: RankArray | Uint8Array = new Uint8Array(0)): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + payload.byteLength)
  out.writeUInt32LE(payload.byteLength, 0)
  out.writeUInt8(kind, 4)
  out.writeUInt8(kind === Kind.Data ? typeCode(payload) : 0, 5)
  out.writeUInt16LE(0, 6)
  out.writeInt32LE(tag, 8)
  out.set(new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength), HEADER_BYTES)
  return out
}

export function textFrame(kind: Kind, value: unknown): Buffer {
  return frame(kind, 0, new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value)))
}

export interface Frame {
  kind: Kind
  tag: number
  /** Data frames: the typed array sent; others: the payload's bytes. */
  data: RankArray
}

/** Cuts a byte stream into frames, copying each payload once into a buffer of its own (aligned for its type). */
export class FrameReader {
  private readonly chunks: Buffer[] = []
  private bytes = 0
  private header: { length: number; kind: Kind; type: number; tag: number } | undefined

  constructor(private readonly onFrame: (f: Frame) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.bytes += chunk.length
    for (;;) {
      if (!this.header) {
        if (this.bytes < HEADER_BYTES) return
        const head = this.take(HEADER_BYTES)
        const h = Buffer.from(head.buffer, head.byteOffset, head.byteLength)
        this.header = { length: h.readUInt32LE(0), kind: h.readUInt8(4) as Kind, type: h.readUInt8(5), tag: h.readInt32LE(8) }
      }
      if (this.bytes < this.header.length) return
      const { length, kind, type, tag } = this.header
      this.header = undefined
      const payload = this.take(length)
      const Type = kind === Kind.Data ? TYPES[type] : Uint8Array
      if (!Type) throw new ApiError('internal', `ranks: a frame of unknown element type ${type}`)
      this.onFrame({ kind, tag, data: new Type(payload.buffer, 0, length / Type.BYTES_PER_ELEMENT) })
    }
  }

  /** The next `n` bytes, in a fresh buffer. */
  private take(n: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(n)
    let at = 0
    while (at < n) {
      const first = this.chunks[0]
      const part = Math.min(first.length, n - at)
      out.set(first.subarray(0, part), at)
      at += part
      if (part === first.length) this.chunks.shift()
      else this.chunks[0] = first.subarray(part)
    }
    this.bytes -= n
    return out
  }
}

export function textOf(data: RankArray): string {
  return new TextDecoder().decode(data)
}
