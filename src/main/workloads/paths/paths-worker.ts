// Worker thread entry: runs phase 2 blocks or phase 3 block rows of one round of blocked
// Floyd–Warshall on a matrix in shared memory.
import { serveTasks } from '../../workers/serve-tasks'
import { blocking, phase2, phase3 } from './blocked-schedule'
import type { BlockKernels } from './js-kernels'
import { wasmBlockKernels } from './simd/wasm-kernels'
import { type BlockTask, tsWorkspaceKernels, type Workspace } from './workspace'

// A pool serves one workspace at a time: keep its kernels (and wasm instance) between tasks.
let cached: { id: number; kernels: BlockKernels } | undefined

function kernelsFor(ws: Workspace): BlockKernels {
  if (cached?.id !== ws.id) cached = { id: ws.id, kernels: ws.kind === 'ts' ? tsWorkspaceKernels(ws) : wasmBlockKernels(ws) }
  return cached.kernels
}

serveTasks({
  ready: () => true,
  phase2: (t: BlockTask) => phase2(kernelsFor(t.ws), blocking(t.ws.V, t.B), t.r, t.blocks!),
  phase3: (t: BlockTask) => phase3(kernelsFor(t.ws), blocking(t.ws.V, t.B), t.r, t.rows!),
})
