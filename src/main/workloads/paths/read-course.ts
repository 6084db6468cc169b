// The course's binary graph format: int32 V, int32 E, then E × (src, dst, weight), little-endian,
// vertices 0…V-1, 0 ≤ weight. Every fault is named by byte offset and edge index.
import { ApiError } from '../../../shared/errors'
import type { Graph } from './graph'

const HEADER = 8
const EDGE = 12

export function parseCourseGraph(bytes: Uint8Array, shown: string): Graph {
  const bad = (msg: string) => new ApiError('invalid-input', `${shown}: ${msg}`)
  if (bytes.length < HEADER) throw bad(`${bytes.length} bytes, shorter than the 8-byte header (int32 V, int32 E)`)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const V = view.getInt32(0, true)
  const E = view.getInt32(4, true)
  if (V <= 0) throw bad(`byte 0: the vertex count V is ${V}; it must be positive`)
  if (E < 0) throw bad(`byte 4: the edge count E is ${E}; it must not be negative`)
  const expected = HEADER + EDGE * E
  if (bytes.length < expected) {
    const missing = Math.floor((bytes.length - HEADER) / EDGE)
    throw bad(`the header announces ${E} edges (${expected} bytes) but the file ends at byte ${bytes.length}: edge ${missing} (from 0), at byte ${HEADER + EDGE * missing}, is ${bytes.length > HEADER + EDGE * missing ? 'cut short' : 'missing'}`)
  }
  if (bytes.length > expected) throw bad(`${bytes.length - expected} bytes follow the ${E} edges the header announces (from byte ${expected})`)
  const src = new Int32Array(E)
  const dst = new Int32Array(E)
  const w = new Int32Array(E)
  for (let e = 0, at = HEADER; e < E; e++, at += EDGE) {
    const s = view.getInt32(at, true)
    const d = view.getInt32(at + 4, true)
    const x = view.getInt32(at + 8, true)
    if (s < 0 || s >= V) throw bad(`edge ${e} at byte ${at}: source ${s} is outside 0…${V - 1}`)
    if (d < 0 || d >= V) throw bad(`edge ${e} at byte ${at + 4}: target ${d} is outside 0…${V - 1}`)
    if (x < 0) throw bad(`edge ${e} at byte ${at + 8}: weight ${x} is negative (the course format has 0 ≤ weight)`)
    src[e] = s
    dst[e] = d
    w[e] = x
  }
  return { format: 'course', V, src, dst, w }
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
