// Floyd–Warshall relaxations in TypeScript on a row-major int32 matrix of row stride S: the plain
// triple loop, and the block kernels of the blocked backends. The `Paths` twins also keep the path
// keys (see matrix.ts): among equal distances the smaller key wins, saturating at KEY_NONE.
import { KEY_NONE } from './matrix'

/** d[i][j] = min(d[i][j], d[i][k] + d[k][j]) for k in k0…k1 (outermost), i in i0…i1, j in j0…j1. */
export function fwBlock(d: Int32Array, S: number, i0: number, i1: number, j0: number, j1: number, k0: number, k1: number): void {
  for (let k = k0; k < k1; k++) {
    const kr = k * S
    for (let i = i0; i < i1; i++) {
      const ir = i * S
      const dik = d[ir + k]
      for (let j = j0; j < j1; j++) {
        const s = dik + d[kr + j]
        if (s < d[ir + j]) d[ir + j] = s
      }
    }
  }
}

/** The same relaxations with i outermost: for blocks whose row and column blocks do not change meanwhile (phase 3). */
export function minPlusBlock(d: Int32Array, S: number, i0: number, i1: number, j0: number, j1: number, k0: number, k1: number): void {
  for (let i = i0; i < i1; i++) {
    const ir = i * S
    for (let k = k0; k < k1; k++) {
      const kr = k * S
      const dik = d[ir + k]
      for (let j = j0; j < j1; j++) {
        const s = dik + d[kr + j]
        if (s < d[ir + j]) d[ir + j] = s
      }
    }
  }
}

/** One relaxation of row i through k over j0…j1, with path keys. */
function relaxRowPaths(d: Int32Array, key: Uint32Array, ir: number, kr: number, k: number, j0: number, j1: number): void {
  const dik = d[ir + k]
  const kik = key[ir + k]
  for (let j = j0; j < j1; j++) {
    const s = dik + d[kr + j]
    const cur = d[ir + j]
    if (s <= cur) {
      const c = Math.min(kik + (key[kr + j] >>> 16) * 0x10000, KEY_NONE)
      if (s < cur) {
        d[ir + j] = s
        key[ir + j] = c
      } else if (c < key[ir + j]) key[ir + j] = c
    }
  }
}

export function fwBlockPaths(d: Int32Array, key: Uint32Array, S: number, i0: number, i1: number, j0: number, j1: number, k0: number, k1: number): void {
  for (let k = k0; k < k1; k++) for (let i = i0; i < i1; i++) relaxRowPaths(d, key, i * S, k * S, k, j0, j1)
}

export function minPlusBlockPaths(d: Int32Array, key: Uint32Array, S: number, i0: number, i1: number, j0: number, j1: number, k0: number, k1: number): void {
  for (let i = i0; i < i1; i++) for (let k = k0; k < k1; k++) relaxRowPaths(d, key, i * S, k * S, k, j0, j1)
}

/** The block kernels of one matrix, as the blocked schedule calls them (TypeScript or WebAssembly). */
export interface BlockKernels {
  /** k outermost: blocks that read themselves while they change (phases 1 and 2). */
  fw(i0: number, i1: number, j0: number, j1: number, k0: number, k1: number): void
  /** Blocks whose inputs stay fixed during the round (phase 3). */
  minPlus(i0: number, i1: number, j0: number, j1: number, k0: number, k1: number): void
}

export function jsBlockKernels(d: Int32Array, key: Uint32Array | undefined, S: number): BlockKernels {
  return key
    ? { fw: (...a) => fwBlockPaths(d, key, S, ...a), minPlus: (...a) => minPlusBlockPaths(d, key, S, ...a) }
    : { fw: (...a) => fwBlock(d, S, ...a), minPlus: (...a) => minPlusBlock(d, S, ...a) }
}
