// How the CPU backends cut the work: the cross-product tiles of the upper triangle, and ranges of
// rows with equal work for the threads. Shared by the TypeScript and the WebAssembly kernels, so
// every backend computes the same tiles.

/** Rows (series) per cross-product tile: 64 rows of 256 f64 samples (128 KiB) per side stay in L2. */
export const TILE = 64
/** Samples per cache block of the cross-products. */
export const KC = 256
/** Rows of the micro-kernel: D and the matrix rows are padded to a multiple of this. */
export const ROW_STEP = 4
/** Samples are padded to a multiple of this for the SIMD loops (four f32 or two f64 lanes). */
export const LANE_STEP = 4

export function padTo(n: number, step: number): number {
  return Math.ceil(n / step) * step
}

/** Tiles per side for m series. */
export function tileCount(m: number): number {
  return Math.ceil(m / TILE)
}

/** Upper-triangle tile pairs (ti ≤ tj) for m series, in row order. */
export function tilePairs(m: number): number {
  const t = tileCount(m)
  return (t * (t + 1)) / 2
}

/** The tile pair of index `p` in row order: row ti holds tj = ti … t−1. */
export function tilePair(p: number, m: number): [number, number] {
  const t = tileCount(m)
  let ti = 0
  let first = 0
  while (first + (t - ti) <= p) {
    first += t - ti
    ti++
  }
  return [ti, ti + (p - first)]
}

/** [from, to) ranges of tile pairs, about `parts` per thread, so that a slow thread does not hold the others up. */
export function tileChunks(m: number, parts: number): [number, number][] {
  const total = tilePairs(m)
  const count = Math.max(1, Math.min(total, parts))
  return Array.from({ length: count }, (_, i) => [Math.floor((i * total) / count), Math.floor(((i + 1) * total) / count)] as [number, number]).filter(
    ([a, b]) => b > a,
  )
}

/** [from, to) row ranges of equal size. */
export function rowChunks(m: number, parts: number): [number, number][] {
  const count = Math.max(1, Math.min(m, parts))
  return Array.from({ length: count }, (_, i) => [Math.floor((i * m) / count), Math.floor(((i + 1) * m) / count)] as [number, number])
}

/**
 * [from, to) row ranges of equal upper-triangle work (row i has m − i − 1 pairs to its right), for
 * the coefficients stage.
 */
export function triangleChunks(m: number, parts: number): [number, number][] {
  const count = Math.max(1, Math.min(m, parts))
  const total = (m * (m + 1)) / 2
  const out: [number, number][] = []
  let row = 0
  let done = 0
  for (let i = 1; i <= count; i++) {
    const target = (total * i) / count
    const from = row
    while (row < m && (i === count || done + (m - row) <= target)) done += m - row++
    if (row > from) out.push([from, row])
  }
  return out
}
