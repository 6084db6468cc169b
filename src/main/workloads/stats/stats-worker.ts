// Worker thread entry: runs the statistics kernels on one slice of a column in shared memory.
import { serveTasks } from '../../workers/serve-tasks'
import { bytesPerValue, type SliceKernels } from './slice-kernels'
import { WasmKernels } from './simd/wasm-kernels'
import type { CopyTask, SliceTask, Workspace } from './slice-runner'
import { copyIntoWasm } from './simd/wasm-module'
import { TsKernels } from './js-kernels'

// An engine's pool serves one workspace; instantiate its wasm module once per thread.
let wasm: { id: number; kernels: WasmKernels } | undefined

function kernelsFor(ws: Workspace): SliceKernels {
  if (ws.kind === 'ts') return new TsKernels(new Int32Array(ws.regions))
  if (wasm?.id !== ws.id) wasm = { id: ws.id, kernels: new WasmKernels(ws.module, ws.memory) }
  return wasm.kernels
}

serveTasks({
  // Sent once per thread while the file loads: the thread's start and instantiation happen then.
  warm: (t: Pick<SliceTask, 'workspace'>) => void kernelsFor(t.workspace),
  // A slice of a loaded column into the engine's wasm memory (PoolRunner.copyIn).
  copy: (t: CopyTask) =>
    copyIntoWasm(new Float64Array(t.source, t.byteOffset + t.start * 8, t.end - t.start), t.workspace.memory, t.ptr + t.start * bytesPerValue(t.precision), t.precision),
  scan: (t: SliceTask) => kernelsFor(t.workspace).scan(t.column, t.start, t.end, t.slice),
  pass: (t: SliceTask) => kernelsFor(t.workspace).pass(t.column, t.start, t.end, t.slice, t.spec!),
})
