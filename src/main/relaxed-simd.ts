// WebAssembly relaxed SIMD (the correlation kernels' fused multiply-adds): on by default in
// Electron's V8 and in Node 22's, behind --experimental-wasm-relaxed-simd in Node 20's. V8 reads
// the flag when it validates or compiles a module, in every thread of the process, workers too.
import { setFlagsFromString } from 'node:v8'

/** (module (func (param v128) (result v128) local.get 0 local.get 0 local.get 0 f64x2.relaxed_madd)) */
const PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 0, 32, 0, 253, 135, 2, 11])

/** Whether this V8 accepts relaxed SIMD now. */
export function relaxedSimd(): boolean {
  return WebAssembly.validate(PROBE)
}

/** Turns relaxed SIMD on where V8 keeps it behind a flag; for a process's entry, before any WebAssembly is compiled. */
export function enableRelaxedSimd(): boolean {
  if (!relaxedSimd()) setFlagsFromString('--experimental-wasm-relaxed-simd')
  return relaxedSimd()
}
