// Worker thread entry of the CPU benchmark (cpu-bench.ts): fills and reads its slice of the shared
// memory, and runs multiply-add chains in WebAssembly SIMD or scalar TypeScript.
import { serveTasks } from '../../workers/serve-tasks'
import { type CpuWorkspace, type DeviceWasmExports, scalarFma } from './cpu-kernels'

// A benchmark's pool serves one workspace: instantiate the module once per thread.
let wasm: { id: number; exports: DeviceWasmExports } | undefined

function kernels(ws: CpuWorkspace): DeviceWasmExports {
  if (wasm?.id !== ws.id) wasm = { id: ws.id, exports: new WebAssembly.Instance(ws.module, { env: { memory: ws.memory } }).exports as unknown as DeviceWasmExports }
  return wasm.exports
}

export interface SliceTask {
  workspace: CpuWorkspace
  ptr: number
  count: number
}

serveTasks({
  fill: (t: SliceTask & { first: number }) => kernels(t.workspace).fill(t.ptr, t.count, t.first),
  read: (t: SliceTask & { passes: number }) => kernels(t.workspace).read(t.ptr, t.count, t.passes),
  simdFma: (t: { workspace: CpuWorkspace; iters: number; a: number; b: number }) => kernels(t.workspace).fma(t.iters, t.a, t.b),
  scalarFma: (t: { iters: number; a: number; b: number }) => scalarFma(t.iters, t.a, t.b),
})
