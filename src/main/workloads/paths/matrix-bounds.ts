// What a graph may make Paralab allocate, checked once the whole file has been read and before any
// V × V matrix exists: vertices its edges justify, the SIMD backends' 4 GiB memory, and the memory
// this machine has available now.
import { ApiError } from '../../../shared/errors'
import type { PathsBackend } from '../../../shared/workloads/paths/types'
import { edgeCount, type Graph } from './graph'
import { wasmLayout, WASM_MAX_BYTES } from './simd/wasm-module'

/** Vertices no edge names that a graph may have whatever its edges (a 4096 × 4096 matrix is 64 MiB). */
export const MAX_UNNAMED_VERTICES = 4096

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1)

/**
 * A header may announce more vertices than its edges name (isolated vertices), but not so many
 * that an 8-byte file makes a matrix of gigabytes: the vertices no edge names may be at most as
 * many as those named, or MAX_UNNAMED_VERTICES.
 */
export function checkVertexCount(g: Graph, shown: string): void {
  const { V, src, dst } = g
  if (V <= MAX_UNNAMED_VERTICES) return
  const E = edgeCount(g)
  checkAnnouncedVertices(shown, V, E)
  // A byte a vertex: V ≤ 4E + 4096 here, within the edge arrays' 12 bytes an edge.
  const seen = new Uint8Array(V)
  let named = 0
  for (let e = 0; e < E; e++) {
    if (!seen[src[e]]) (seen[src[e]] = 1), named++
    if (!seen[dst[e]]) (seen[dst[e]] = 1), named++
  }
  if (V - named > Math.max(MAX_UNNAMED_VERTICES, named)) throw unjustified(shown, V, E, named)
}

/**
 * The same bound from a header alone, before any edge is read: E edges name two vertices each at
 * most, so a header far beyond them is refused without counting (and without allocating).
 */
export function checkAnnouncedVertices(shown: string, V: number, E: number): void {
  if (V > MAX_UNNAMED_VERTICES && V - 2 * E > Math.max(MAX_UNNAMED_VERTICES, 2 * E)) throw unjustified(shown, V, E, undefined)
}

function unjustified(shown: string, V: number, E: number, named: number | undefined): ApiError {
  const names = named === undefined ? `name at most ${2 * E}` : `name ${named}`
  return new ApiError(
    'invalid-input',
    `${shown}: the header announces ${V} vertices, but its ${E} edge${E === 1 ? '' : 's'} ${names} of them: a ${V} × ${V} matrix (${gib(4 * V * V)} GiB) is made only for vertices the edges name, with at most ${MAX_UNNAMED_VERTICES} (or as many as are named) that none names`,
  )
}

/** The SIMD backends hold the matrix (and the path keys) in one WebAssembly memory of at most 4 GiB. */
export function checkSimdMemory(shown: string, V: number, paths: boolean, backends: readonly PathsBackend[]): void {
  if (!backends.some((b) => b === 'simd' || b === 'workers-simd')) return
  const { bytes } = wasmLayout(V, paths)
  if (bytes > WASM_MAX_BYTES)
    throw new ApiError('invalid-input', `${shown}: a ${V} × ${V} matrix${paths ? ' with successors' : ''} takes ${gib(bytes)} GiB, beyond the 4 GiB WebAssembly memory of the SIMD backends (simd, workers-simd)`)
}

/**
 * Says before starting when the matrices cannot fit in the memory this machine has available now
 * (not its total, much of which others may hold): the reference run's, the current run's and one
 * copy in flight (out of a thread or a device), each with its path keys when successors are kept.
 */
export function checkMemory(shown: string, V: number, paths: boolean, runs: number, available = process.availableMemory(), real = false): void {
  const matrices = (runs > 1 ? 3 : 2) * (paths ? 2 : 1)
  // Real distances are f64: twice an int32 matrix's bytes (counted for keys too, an over-estimate).
  const need = V * V * (real ? 8 : 4) * matrices
  if (need > available)
    throw new ApiError('invalid-input', `${shown}: ${V} vertices need about ${gib(need)} GiB for ${matrices} ${V} × ${V} matrices; ${gib(available)} GiB of memory are available`)
}
