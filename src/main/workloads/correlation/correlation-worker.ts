// Worker thread entry: runs one chunk of a correlation stage on a workspace in shared memory.
import { serveTasks } from '../../workers/serve-tasks'
import { type StageTask, type Workspace, kernelsFor } from './cpu-engine'

// An engine's pool serves one workspace: instantiate its wasm module once per thread.
let wasm: { id: number; kernels: ReturnType<typeof kernelsFor> } | undefined

function kernels(ws: Workspace): ReturnType<typeof kernelsFor> {
  if (ws.kind === 'ts') return kernelsFor(ws)
  if (wasm?.id !== ws.id) wasm = { id: ws.id, kernels: kernelsFor(ws) }
  return wasm.kernels
}

serveTasks({
  stage: (t: StageTask) => kernels(t.workspace)[t.stage](t.size, t.from, t.to),
  /** Instantiates the kernels before the first timed stage. */
  warm: (ws: Workspace) => void kernels(ws),
})
