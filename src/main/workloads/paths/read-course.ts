// The course's binary graph format: int32 V, int32 E, then E × (src, dst, weight), little-endian,
// vertices 0…V-1, 0 ≤ weight. Decoded from pieces of any size as the file is read, so a file beyond
// one byte array (2 GiB) reads too. Every fault is named by byte offset and edge index.
import { ApiError } from '../../../shared/errors'
import { allocateEdges, type EdgeArrays, type Graph } from './graph'

const HEADER = 8
const EDGE = 12

/**
 * Takes the file's bytes in order, in pieces of any size (a piece may end inside the header or an
 * edge). The file's size, known before reading, is checked against the header before the edge
 * arrays are allocated.
 */
export class CourseDecoder {
  /** A header or an edge split between two pieces. */
  private readonly held = new Uint8Array(EDGE)
  private heldBytes = 0
  private V = 0
  /** −1 until the header is read. */
  private E = -1
  /** Edges decoded so far. */
  private e = 0
  private edges: EdgeArrays | undefined

  constructor(
    private readonly shown: string,
    private readonly size: number,
  ) {
    if (size < HEADER) throw this.bad(`${size} bytes, shorter than the 8-byte header (int32 V, int32 E)`)
  }

  private bad(msg: string): ApiError {
    return new ApiError('invalid-input', `${this.shown}: ${msg}`)
  }

  push(bytes: Uint8Array): void {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    let at = 0
    while (at < bytes.length) {
      const need = this.E < 0 ? HEADER : EDGE
      if (this.E === this.e) throw new ApiError('internal', `${this.shown}: more bytes than the ${this.size} the file has`)
      if (this.heldBytes > 0 || bytes.length - at < need) {
        const take = Math.min(need - this.heldBytes, bytes.length - at)
        this.held.set(bytes.subarray(at, at + take), this.heldBytes)
        this.heldBytes += take
        at += take
        if (this.heldBytes < need) return
        this.heldBytes = 0
        const heldView = new DataView(this.held.buffer)
        if (this.E < 0) this.header(heldView)
        else this.decode(heldView, 0, 1)
      } else if (this.E < 0) {
        this.header(new DataView(bytes.buffer, bytes.byteOffset + at, HEADER))
        at += HEADER
      } else {
        const n = Math.min(Math.floor((bytes.length - at) / EDGE), this.E - this.e)
        this.decode(view, at, n)
        at += n * EDGE
      }
    }
  }

  private header(view: DataView): void {
    const V = view.getInt32(0, true)
    const E = view.getInt32(4, true)
    if (V <= 0) throw this.bad(`byte 0: the vertex count V is ${V}; it must be positive`)
    if (E < 0) throw this.bad(`byte 4: the edge count E is ${E}; it must not be negative`)
    const { size } = this
    const expected = HEADER + EDGE * E
    if (size < expected) {
      const missing = Math.floor((size - HEADER) / EDGE)
      throw this.bad(`the header announces ${E} edges (${expected} bytes) but the file ends at byte ${size}: edge ${missing} (from 0), at byte ${HEADER + EDGE * missing}, is ${size > HEADER + EDGE * missing ? 'cut short' : 'missing'}`)
    }
    if (size > expected) throw this.bad(`${size - expected} bytes follow the ${E} edges the header announces (from byte ${expected})`)
    this.edges = allocateEdges(E, `${this.shown}: V = ${V}, E = ${E}`)
    this.V = V
    this.E = E
  }

  /** `n` edges from `view` at `at`. */
  private decode(view: DataView, at: number, n: number): void {
    const { V } = this
    const { src, dst, w } = this.edges!
    const end = this.e + n
    for (let e = this.e; e < end; e++, at += EDGE) {
      const s = view.getInt32(at, true)
      const d = view.getInt32(at + 4, true)
      const x = view.getInt32(at + 8, true)
      if (s < 0 || s >= V || d < 0 || d >= V || x < 0) this.refuse(e, s, d, x)
      src[e] = s
      dst[e] = d
      w[e] = x
    }
    this.e = end
  }

  private refuse(e: number, s: number, d: number, x: number): never {
    const at = HEADER + EDGE * e
    const { V } = this
    if (s < 0 || s >= V) throw this.bad(`edge ${e} at byte ${at}: source ${s} is outside 0…${V - 1}`)
    if (d < 0 || d >= V) throw this.bad(`edge ${e} at byte ${at + 4}: target ${d} is outside 0…${V - 1}`)
    throw this.bad(`edge ${e} at byte ${at + 8}: weight ${x} is negative (the course format has 0 ≤ weight)`)
  }

  finish(): Graph {
    if (this.E < 0 || this.e < this.E) throw new ApiError('io', `cannot read ${this.shown}: the file got shorter while it was read`)
    return { format: 'course', V: this.V, ...this.edges! }
  }
}

/** A course file already in memory. */
export function parseCourseGraph(bytes: Uint8Array, shown: string): Graph {
  const decoder = new CourseDecoder(shown, bytes.length)
  decoder.push(bytes)
  return decoder.finish()
}

/** The file's bytes in the course format. */
export function courseGraphBytes(V: number, src: ArrayLike<number>, dst: ArrayLike<number>, w: ArrayLike<number>): Uint8Array {
  const E = src.length
  const out = new Uint8Array(HEADER + EDGE * E)
  const view = new DataView(out.buffer)
  view.setInt32(0, V, true)
  view.setInt32(4, E, true)
  for (let e = 0, at = HEADER; e < E; e++, at += EDGE) {
    view.setInt32(at, src[e], true)
    view.setInt32(at + 4, dst[e], true)
    view.setInt32(at + 8, w[e], true)
  }
  return out
}
