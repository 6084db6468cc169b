// A matrix in memory that worker threads share: SharedArrayBuffers (TypeScript kernels) or one
// shared WebAssembly memory (SIMD kernels), with the block kernels over it on any thread.
import { jsBlockKernels, type BlockKernels } from './js-kernels'

export type Workspace =
  | { kind: 'ts'; id: number; V: number; S: number; d: SharedArrayBuffer; key?: SharedArrayBuffer }
  | { kind: 'wasm'; id: number; V: number; S: number; module: WebAssembly.Module; memory: WebAssembly.Memory; dPtr: number; keyPtr?: number }

/** What a worker is asked to do in one round: phase 2 blocks as [row, column], or phase 3 block rows. */
export interface BlockTask {
  ws: Workspace
  B: number
  r: number
  blocks?: [number, number][]
  rows?: number[]
}

/** Kernels over a TypeScript workspace (the wasm ones come from simd/wasm-kernels.ts). */
export function tsWorkspaceKernels(ws: Extract<Workspace, { kind: 'ts' }>): BlockKernels {
  return jsBlockKernels(new Int32Array(ws.d), ws.key && new Uint32Array(ws.key), ws.S)
}
