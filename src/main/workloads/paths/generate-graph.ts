// Random graphs in the format the file's name says (the course's binary format, DIMACS .gr, a CSV
// edge list or Matrix Market .mtx): E distinct edges drawn uniformly among the V(V − 1) ordered
// pairs without self-loops, weights uniform in 0…max. The same seed gives the same bytes.
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { writeFileAtomic } from '../../io/atomic-write'
import type { GraphFormat } from '../../../shared/workloads/paths/types'
import { graphFormatOfName } from './read-graph'
import { graphPieces } from './write-graph'
import { MAX_GENERATED_VERTICES } from './generate-limits'

export interface GenerateGraphOptions {
  vertices: number
  edges: number
  maxWeight?: number
  seed?: number
  /** Replace an existing file. */
  force?: boolean
  signal?: AbortSignal
}

export { MAX_GENERATED_VERTICES }

/** mulberry32: small, fast and good enough for test graphs; uniform doubles from two draws. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }
  return () => (next() * 2 ** 21 + (next() >>> 11)) / 2 ** 53
}

/** Pair p of the V(V − 1) ordered pairs without self-loops, as [source, target]. */
function pair(p: number, V: number): [number, number] {
  const u = Math.floor(p / (V - 1))
  const t = p - u * (V - 1)
  return [u, t < u ? t : t + 1]
}

/** A Set holds at most 2^24 entries: beyond a few million draws the pairs go in a bitset (≤ 268 MB at the largest V). */
const SET_MAX_DRAWS = 2 ** 22

/** Chosen pair indices: a set of the few chosen, else a bitset of every pair (V ≤ 46 340 keeps indices below 2^32). */
function picker(pairs: number, draws: number): { has(p: number): boolean; add(p: number): void } {
  if (draws <= SET_MAX_DRAWS && pairs > 2 ** 29) {
    const set = new Set<number>()
    return { has: (p) => set.has(p), add: (p) => void set.add(p) }
  }
  const bits = new Uint8Array(Math.ceil(pairs / 8))
  return { has: (p) => (bits[p >>> 3] & (1 << (p & 7))) !== 0, add: (p) => void (bits[p >>> 3] |= 1 << (p & 7)) }
}

export function generateGraph(opts: GenerateGraphOptions): { src: Int32Array; dst: Int32Array; w: Int32Array } {
  const { vertices: V, edges: E } = opts
  const maxWeight = opts.maxWeight ?? 1000
  if (!Number.isInteger(V) || V < 1 || V > MAX_GENERATED_VERTICES) throw new ApiError('invalid-argument', `vertices must be an integer in 1…${MAX_GENERATED_VERTICES}, got ${V}`)
  const pairs = V * (V - 1)
  if (!Number.isInteger(E) || E < 0 || E > pairs) throw new ApiError('invalid-argument', `edges must be an integer in 0…${pairs} (V(V − 1) distinct pairs without self-loops), got ${E}`)
  if (!Number.isInteger(maxWeight) || maxWeight < 0 || (V - 1) * maxWeight >= 2 ** 30 - 1)
    throw new ApiError('invalid-argument', `max-weight must be an integer in 0…${Math.floor((2 ** 30 - 2) / Math.max(1, V - 1))} for ${V} vertices (distances stay below 2^30 − 1), got ${maxWeight}`)
  const rand = seededRandom(opts.seed ?? 1)
  const src = new Int32Array(E)
  const dst = new Int32Array(E)
  const w = new Int32Array(E)
  // Dense: draw the pairs left out instead, then take the others in order.
  const dense = E > pairs / 2
  const draws = dense ? pairs - E : E
  const drawn = picker(pairs, draws)
  // Only the sparse case takes its pairs in the order drawn.
  const order = new Uint32Array(dense ? 0 : draws)
  for (let n = 0; n < draws; ) {
    if ((n & 0xffff) === 0) throwIfAborted(opts.signal)
    const p = Math.floor(rand() * pairs)
    if (drawn.has(p)) continue
    drawn.add(p)
    if (!dense) order[n] = p
    n++
  }
  let e = 0
  const take = (p: number) => {
    ;[src[e], dst[e]] = pair(p, V)
    w[e] = Math.floor(rand() * (maxWeight + 1))
    e++
  }
  if (dense) {
    for (let p = 0; p < pairs; p++) if (!drawn.has(p)) take(p)
  } else for (const p of order) take(p)
  return { src, dst, w }
}

/** Writes a generated graph to `path` atomically, in the format its name says (write-graph.ts); returns its size. */
export async function writeGeneratedGraph(path: string, opts: GenerateGraphOptions): Promise<{ vertices: number; edges: number; bytes: number; format: GraphFormat }> {
  const g = generateGraph(opts)
  throwIfAborted(opts.signal)
  const format = graphFormatOfName(path)
  let bytes = 0
  const pieces = graphPieces(format, opts.vertices, g.src, g.dst, g.w)
  await writeFileAtomic(path, (function* () {
    for (const piece of pieces) {
      bytes += piece.length
      yield piece
    }
  })(), { overwrite: opts.force })
  return { vertices: opts.vertices, edges: opts.edges, bytes, format }
}
