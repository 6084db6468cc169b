// Worker thread entry: runs one chunk of a correlation stage on a workspace in shared memory.
import { serveTasks } from '../../workers/serve-tasks'
import { type StageTask, kernelsFor } from './cpu-engine'

// An engine's pool serves one workspace: instantiate its wasm module once per thread.
let wasm: { id: number; kernels: ReturnType<typeof kernelsFor> } | undefined

serveTasks({
  stage(t: StageTask) {
    const ws = t.workspace
    if (ws.kind === 'ts') return kernelsFor(ws)[t.stage](t.size, t.from, t.to)
    if (wasm?.id !== ws.id) wasm = { id: ws.id, kernels: kernelsFor(ws) }
    wasm.kernels[t.stage](t.size, t.from, t.to)
  },
})
