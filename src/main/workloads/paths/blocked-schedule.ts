// The three-phase schedule of blocked Floyd–Warshall. Round r takes the pivot block (r, r) through
// its own B values of k (phase 1), then the blocks of row r and column r, which read the pivot
// (phase 2), then every other block, which reads its row's and its column's (phase 3). Blocks at the
// right and bottom edges are cut at V: no padding is needed.
import type { BlockKernels } from './js-kernels'

export interface Blocking {
  V: number
  B: number
  /** Blocks per side: ceil(V / B). */
  R: number
}

export function blocking(V: number, B: number): Blocking {
  return { V, B, R: Math.ceil(V / B) }
}

const lo = (g: Blocking, b: number) => b * g.B
const hi = (g: Blocking, b: number) => Math.min(g.V, (b + 1) * g.B)

export function phase1(kern: BlockKernels, g: Blocking, r: number): void {
  kern.fw(lo(g, r), hi(g, r), lo(g, r), hi(g, r), lo(g, r), hi(g, r))
}

/** The blocks of phase 2 of round r, as [row, column]: row r's, then column r's. */
export function phase2Blocks(g: Blocking, r: number): [number, number][] {
  const out: [number, number][] = []
  for (let b = 0; b < g.R; b++) if (b !== r) out.push([r, b])
  for (let b = 0; b < g.R; b++) if (b !== r) out.push([b, r])
  return out
}

export function phase2(kern: BlockKernels, g: Blocking, r: number, blocks: readonly [number, number][]): void {
  for (const [bi, bj] of blocks) kern.fw(lo(g, bi), hi(g, bi), lo(g, bj), hi(g, bj), lo(g, r), hi(g, r))
}

/** The block rows of phase 3 of round r. */
export function phase3Rows(g: Blocking, r: number): number[] {
  return Array.from({ length: g.R }, (_, b) => b).filter((b) => b !== r)
}

export function phase3(kern: BlockKernels, g: Blocking, r: number, rows: readonly number[]): void {
  for (const bi of rows)
    for (let bj = 0; bj < g.R; bj++) if (bj !== r) kern.minPlus(lo(g, bi), hi(g, bi), lo(g, bj), hi(g, bj), lo(g, r), hi(g, r))
}

/** Splits `items` into at most `parts` contiguous runs of nearly equal length. */
export function split<T>(items: readonly T[], parts: number): T[][] {
  const n = Math.min(parts, items.length)
  return Array.from({ length: n }, (_, p) => items.slice(Math.floor((p * items.length) / n), Math.floor(((p + 1) * items.length) / n)))
}
