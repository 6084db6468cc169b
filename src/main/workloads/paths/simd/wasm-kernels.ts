// The block kernels over a matrix in shared WebAssembly memory, as the blocked schedule calls them.
import type { BlockKernels } from '../js-kernels'
import type { Workspace } from '../workspace'
import { instantiatePaths } from './wasm-module'

export function wasmBlockKernels(ws: Extract<Workspace, { kind: 'wasm' }>): BlockKernels {
  const x = instantiatePaths(ws.module, ws.memory)
  const { S, dPtr, keyPtr } = ws
  // Blocks end at V; the kernels take whole vectors, through the INF padding columns up to S.
  const end = (j1: number) => Math.min(S, Math.ceil(j1 / 4) * 4)
  return keyPtr !== undefined
    ? {
        fw: (i0, i1, j0, j1, k0, k1) => x.fwPaths(dPtr, keyPtr, S, i0, i1, j0, end(j1), k0, k1),
        minPlus: (i0, i1, j0, j1, k0, k1) => x.minPlusPaths(dPtr, keyPtr, S, i0, i1, j0, end(j1), k0, k1),
      }
    : {
        fw: (i0, i1, j0, j1, k0, k1) => x.fw(dPtr, S, i0, i1, j0, end(j1), k0, k1),
        minPlus: (i0, i1, j0, j1, k0, k1) => x.minPlus(dPtr, S, i0, i1, j0, end(j1), k0, k1),
      }
}

