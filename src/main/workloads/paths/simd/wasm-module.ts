// Loading the compiled SIMD kernels (out/wasm/paths.wasm, built by `npm run build:wasm`) and
// laying out the shared linear memory they work in: the distances, then the path keys.
import { ApiError } from '../../../../shared/errors'
import { loadWasmModule } from '../../../workers/wasm-modules'

/** The compiled paths.wasm. */
export function loadPathsWasm(): Promise<WebAssembly.Module> {
  return loadWasmModule('paths')
}

type Kernel = (...args: number[]) => void

/** The module's exports (see simd/assembly/index.ts). */
export interface PathsWasmExports {
  fw: Kernel
  minPlus: Kernel
  fwPaths: Kernel
  minPlusPaths: Kernel
}

export function instantiatePaths(module: WebAssembly.Module, memory: WebAssembly.Memory): PathsWasmExports {
  return new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as PathsWasmExports
}

const PAGE = 65536
const MAX_PAGES = 65536
/** Below this, the module's own static data. */
const BASE = 65536

/** Row stride of the matrix in wasm memory: whole vectors of four. */
export function wasmStride(V: number): number {
  return Math.ceil(V / 4) * 4
}

export interface WasmMatrixLayout {
  S: number
  dPtr: number
  keyPtr?: number
  bytes: number
}

export function wasmLayout(V: number, paths: boolean): WasmMatrixLayout {
  const S = wasmStride(V)
  const size = Math.ceil((V * S * 4) / 64) * 64
  return { S, dPtr: BASE, ...(paths && { keyPtr: BASE + size }), bytes: BASE + size * (paths ? 2 : 1) }
}

/** The most linear memory WebAssembly (32-bit) can address. */
export const WASM_MAX_BYTES = MAX_PAGES * PAGE

/** A shared memory holding the layout, or an 'invalid-input' error when it cannot. */
export function createPathsMemory(layout: WasmMatrixLayout, V: number): WebAssembly.Memory {
  if (layout.bytes > WASM_MAX_BYTES)
    throw new ApiError('invalid-input', `a ${V} × ${V} matrix${layout.keyPtr ? ' with successors' : ''} takes ${(layout.bytes / 2 ** 30).toFixed(1)} GiB, beyond the 4 GiB WebAssembly memory of the SIMD backends`)
  return new WebAssembly.Memory({ initial: Math.ceil(layout.bytes / PAGE), maximum: MAX_PAGES, shared: true })
}
