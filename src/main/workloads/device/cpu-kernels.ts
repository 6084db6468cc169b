// What the CPU benchmark's threads run: the SIMD module (simd/assembly/index.ts) on the shared
// memory, and the scalar multiply-add chains in TypeScript as the serial and workers backends compute.
import { relaxedSimd } from '../../relaxed-simd'
import { loadWasmModule } from '../../workers/wasm-modules'

/** The two builds of the kernels, as the correlation's: fused multiply-adds where V8 has relaxed SIMD. */
export type DeviceWasmBuild = 'relaxed' | 'simd128'

export function deviceWasmBuild(): DeviceWasmBuild {
  return relaxedSimd() ? 'relaxed' : 'simd128'
}

export function loadDeviceWasm(build: DeviceWasmBuild): Promise<WebAssembly.Module> {
  return loadWasmModule(build === 'relaxed' ? 'device-relaxed' : 'device')
}

/** The module's exports (simd/assembly/index.ts). */
export interface DeviceWasmExports {
  fill(ptr: number, count: number, first: number): number
  read(ptr: number, count: number, passes: number): number
  fma(iters: number, a: number, b: number): number
}

/** The module and the memory every thread works in; `id` tells a thread when to instantiate again. */
export interface CpuWorkspace {
  id: number
  module: WebAssembly.Module
  memory: WebAssembly.Memory
}

/** FLOP of one trip of the SIMD chains: 12 vector multiply-adds of two f64 lanes, 2 FLOP each. */
export const SIMD_FLOP_PER_TRIP = 12 * 2 * 2
/** FLOP of one trip of the scalar chains: 8 multiply-adds (a multiply, then an add). */
export const SCALAR_FLOP_PER_TRIP = 8 * 2

/** What the chains sum to with a = b = 1: their starting values plus one per trip and lane. */
export const simdFmaSum = (iters: number): number => 276 + 24 * iters
export const scalarFmaSum = (iters: number): number => 28 + 8 * iters

/**
 * Eight independent chains x ← x · a + b in f64, as the TypeScript backends' inner loops compute:
 * a multiply and an add each (JavaScript fuses nothing). `a` and `b` come from the caller, so V8
 * cannot fold the loop away.
 */
export function scalarFma(iters: number, a: number, b: number): number {
  let x0 = 0, x1 = 1, x2 = 2, x3 = 3, x4 = 4, x5 = 5, x6 = 6, x7 = 7
  for (let i = 0; i < iters; i++) {
    x0 = x0 * a + b
    x1 = x1 * a + b
    x2 = x2 * a + b
    x3 = x3 * a + b
    x4 = x4 * a + b
    x5 = x5 * a + b
    x6 = x6 * a + b
    x7 = x7 * a + b
  }
  return x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7
}
