// The ranks' wire format: frames of a 12-byte header (payload length u32, kind u8, element type
// u8, two spare bytes, tag i32; little-endian) and the payload. Typed arrays travel as their raw
// bytes with their element type, so a receiver gets back the array that was sent.
//
// A header is checked before its payload is read: an unknown kind or element type, spare bytes
// that are not zero, or a length beyond what the connection may carry now stops the reader and
// names why; the caller closes the connection. Nothing a peer sends makes the reader throw.
import { ApiError } from '../../shared/errors'

export const HEADER_BYTES = 12

export const Kind = {
  /** A rank introduces itself on a new connection, answering the challenge: JSON { rank, job, port, nonce, proof }. */
  Hello: 1,
  /** Rank 0 tells each rank where every rank listens: JSON { hosts, ports }. */
  Table: 2,
  /** A typed array for the receiver, under a tag. */
  Data: 3,
  /** The sender failed: UTF-8 reason. Every rank then fails too. */
  Abort: 4,
  /** The sender finished normally and sends nothing more. */
  Bye: 5,
  /** The accepting side's first frame: a fresh nonce the connecting rank must prove the job's key on. */
  Challenge: 6,
  /** The accepting side's proof of the job's key, on both nonces: the connecting rank believes nothing before it. */
  Welcome: 7,
  /** Nothing but "this rank still runs", sent when a rank has been quiet for a while. */
  Ping: 8,
} as const
export type Kind = (typeof Kind)[keyof typeof Kind]

const KINDS = new Set<number>(Object.values(Kind))

/**
 * The largest frame a rank sends or accepts from a rank that proved the job's key: 1 GiB, a band
 * of 134 M f64 cells (the largest message of a landslide in ranks is a band gathered to rank 0,
 * at most the whole grid). Before a peer has proved itself it may send only the handshake's small
 * frames (MAX_HANDSHAKE_BYTES).
 */
export const MAX_FRAME_BYTES = 2 ** 30

/** The handshake's frames: a hello's JSON, a nonce, a proof. */
export const MAX_HANDSHAKE_BYTES = 1024

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
  if (payload.byteLength > MAX_FRAME_BYTES)
    throw new ApiError('invalid-argument', `ranks: a message of ${payload.byteLength} bytes is larger than a frame carries (${MAX_FRAME_BYTES} bytes)`)
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

/** Why a header cannot be read, or undefined when it can. */
export function headerProblem(length: number, kind: number, type: number, spare: number, maxBytes: number): string | undefined {
  if (!KINDS.has(kind)) return `a frame of unknown kind ${kind}`
  if (spare !== 0) return `a frame whose spare header bytes are ${spare}, not 0`
  if (kind === Kind.Data) {
    const Type = TYPES[type]
    if (!Type) return `a data frame of unknown element type ${type}`
    if (length % Type.BYTES_PER_ELEMENT !== 0) return `a data frame of ${length} bytes, not a whole number of ${Type.name} elements`
  } else if (type !== 0) return `a frame of kind ${kind} with element type ${type}`
  if (length > maxBytes) return `a frame announcing ${length} bytes, more than the ${maxBytes} this connection carries${maxBytes === MAX_HANDSHAKE_BYTES ? ' before its hello is proved' : ''}`
  return undefined
}

/**
 * Cuts a byte stream into frames. Each header is checked first (headerProblem, against `maxBytes`,
 * which the owner raises once the peer has proved itself); a payload is copied into a buffer of
 * its own (aligned for its type) as its bytes arrive. After a bad header the reader calls
 * `onInvalid` once and ignores everything after it.
 */
export class FrameReader {
  /** The largest payload accepted now. */
  maxBytes = MAX_HANDSHAKE_BYTES
  private readonly head = Buffer.alloc(HEADER_BYTES)
  private headFill = 0
  private current: { kind: Kind; type: number; tag: number; payload: Uint8Array<ArrayBuffer>; fill: number } | undefined
  private broken = false
  private paused = false
  /** Bytes that came while paused (the owner pauses its socket too: at most a chunk or two). */
  private held: Buffer | undefined

  constructor(
    private readonly onFrame: (f: Frame) => void,
    private readonly onInvalid: (reason: string) => void,
  ) {}

  /** Reads nothing more (the connection is being closed). */
  stop(): void {
    this.broken = true
  }

  /**
   * Reads no further after the frame just delivered, until resume(): the owner checks a handshake
   * frame (and raises maxBytes) before the next header is judged.
   */
  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
    const held = this.held
    this.held = undefined
    if (held) this.push(held)
  }

  push(chunk: Buffer): void {
    if (this.paused) {
      this.held = this.held ? Buffer.concat([this.held, chunk]) : chunk
      return
    }
    let at = 0
    while (!this.broken && at < chunk.length) {
      if (!this.current) {
        const part = Math.min(HEADER_BYTES - this.headFill, chunk.length - at)
        chunk.copy(this.head, this.headFill, at, at + part)
        this.headFill += part
        at += part
        if (this.headFill < HEADER_BYTES) return
        this.headFill = 0
        const length = this.head.readUInt32LE(0)
        const kind = this.head.readUInt8(4)
        const type = this.head.readUInt8(5)
        const problem = headerProblem(length, kind, type, this.head.readUInt16LE(6), this.maxBytes)
        if (problem) {
          this.broken = true
          this.onInvalid(problem)
          return
        }
        this.current = { kind: kind as Kind, type, tag: this.head.readInt32LE(8), payload: new Uint8Array(length), fill: 0 }
      }
      const c = this.current
      const part = Math.min(c.payload.length - c.fill, chunk.length - at)
      c.payload.set(chunk.subarray(at, at + part), c.fill)
      c.fill += part
      at += part
      if (c.fill < c.payload.length) return
      this.current = undefined
      const Type = c.kind === Kind.Data ? TYPES[c.type] : Uint8Array
      this.onFrame({ kind: c.kind, tag: c.tag, data: new Type(c.payload.buffer, 0, c.payload.length / Type.BYTES_PER_ELEMENT) })
      if (this.paused) {
        if (at < chunk.length) this.held = chunk.subarray(at)
        return
      }
    }
  }
}

export function textOf(data: RankArray): string {
  return new TextDecoder().decode(data)
}
