// The blocked CPU backends: three-phase blocked Floyd–Warshall with TypeScript or WebAssembly SIMD
// block kernels, on this thread (`blocked`, `simd`) or with phases 2 and 3 of every round spread
// over worker threads that share the matrix (`workers`, `workers-simd`). Phase 1 (one block) runs
// here meanwhile.
import { availableParallelism } from 'node:os'
import { throwIfAborted } from '../../../shared/cancel'
import type { PathsBackend } from '../../../shared/workloads/paths/types'
import { WorkerPool } from '../../workers/pool'
import { roundCheckpoints, type MatrixView } from './checkpoint'
import { blocking, phase1, phase2, phase2Blocks, phase3, phase3Rows, split } from './blocked-schedule'
import { jsBlockKernels, type BlockKernels } from './js-kernels'
import { compact, fillMatrix } from './matrix'
import type { Problem } from './problem'
import { realUnsupported } from './real'
import { wasmBlockKernels } from './simd/wasm-kernels'
import { createPathsMemory, loadPathsWasm, wasmLayout } from './simd/wasm-module'
import { type SolveOptions, type Solved, type Solver, yielder } from './solver-contract'
import type { BlockTask, Workspace } from './workspace'

export type BlockedBackend = Extract<PathsBackend, 'blocked' | 'simd' | 'workers' | 'workers-simd'>

let nextWorkspace = 1

/** A matrix ready to compute on: kernels for this thread, the workspace for workers, and how to read the result. */
interface Prepared {
  kernels: BlockKernels
  ws?: Workspace
  duplicates: number
  /** The matrix as it is computed on, for checkpoints. */
  view: MatrixView
  result(): { d: Int32Array; key?: Uint32Array }
}

async function prepare(p: Problem, paths: boolean, simd: boolean, shared: boolean): Promise<Prepared> {
  const { V } = p
  if (simd) {
    const module = await loadPathsWasm()
    const layout = wasmLayout(V, paths)
    const memory = createPathsMemory(layout, V)
    const { S, dPtr, keyPtr } = layout
    const d = new Int32Array(memory.buffer, dPtr, V * S)
    const key = keyPtr === undefined ? undefined : new Uint32Array(memory.buffer, keyPtr, V * S)
    const duplicates = fillMatrix(p, d, key, { stride: S, rows: V })
    const ws: Workspace = { kind: 'wasm', id: nextWorkspace++, V, S, module, memory, dPtr, ...(keyPtr !== undefined && { keyPtr }) }
    return {
      kernels: wasmBlockKernels(ws),
      ws,
      duplicates,
      view: { V, S, d, ...(key && { key }) },
      // Out of wasm memory, which the next solve replaces.
      result: () => ({ d: compact(d.slice(), V, S), key: key && compact(key.slice(), V, S) }),
    }
  }
  const words = V * V
  const dBuf = shared ? new SharedArrayBuffer(words * 4) : new ArrayBuffer(words * 4)
  const kBuf = paths ? (shared ? new SharedArrayBuffer(words * 4) : new ArrayBuffer(words * 4)) : undefined
  const d = new Int32Array(dBuf)
  const key = kBuf && new Uint32Array(kBuf)
  const duplicates = fillMatrix(p, d, key)
  const ws: Workspace | undefined = shared ? { kind: 'ts', id: nextWorkspace++, V, S: V, d: dBuf as SharedArrayBuffer, ...(kBuf && { key: kBuf as SharedArrayBuffer }) } : undefined
  return { kernels: jsBlockKernels(d, key, V), ws, duplicates, view: { V, S: V, d, ...(key && { key }) }, result: () => ({ d, key }) }
}

export function blockedSolver(backend: BlockedBackend, B: number, options: { threads?: number } = {}): Solver {
  const parallel = backend === 'workers' || backend === 'workers-simd'
  const simd = backend === 'simd' || backend === 'workers-simd'
  const threads = parallel ? (options.threads ?? availableParallelism()) : undefined
  let pool: WorkerPool | undefined

  async function startPool(signal?: AbortSignal): Promise<WorkerPool> {
    if (!pool) {
      pool = new WorkerPool('paths-worker', threads)
      // Threads start here, not in the first timed round.
      await Promise.all(Array.from({ length: threads! }, () => pool!.run('ready', null)))
    }
    throwIfAborted(signal)
    return pool
  }

  return {
    backend,
    block: B,
    threads,
    async solve(p: Problem, paths: boolean, opts: SolveOptions = {}): Promise<Solved> {
      const { signal } = opts
      if (p.real) throw realUnsupported(backend)
      const m = await prepare(p, paths, simd, parallel)
      const g = blocking(p.V, B)
      // Resumed: the rounds done come from the checkpoint (the graph's matrix counted the duplicates).
      const checkpoints = opts.checkpoint && roundCheckpoints(opts.checkpoint)
      await checkpoints?.load(m.view, signal)
      const workers = parallel ? await startPool(signal) : undefined
      // Cancelling stops the threads at once (their tasks reject as cancelled).
      const onAbort = () => {
        void pool?.terminate()
        pool = undefined
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      const tick = yielder(signal)
      try {
        const t0 = performance.now()
        let paused = 0
        for (let r = checkpoints?.from ?? 0; r < g.R; r++) {
          phase1(m.kernels, g, r)
          if (workers) {
            const task = (extra: Partial<BlockTask>): BlockTask => ({ ws: m.ws!, B, r, ...extra })
            await Promise.all(split(phase2Blocks(g, r), threads!).map((blocks) => workers.run('phase2', task({ blocks }))))
            await Promise.all(split(phase3Rows(g, r), threads!).map((rows) => workers.run('phase3', task({ rows }))))
          } else {
            phase2(m.kernels, g, r, phase2Blocks(g, r))
            phase3(m.kernels, g, r, phase3Rows(g, r))
            await tick()
          }
          throwIfAborted(signal)
          if (checkpoints) {
            // Writing a checkpoint is not computing: its time is reported apart.
            const t = performance.now()
            await checkpoints.after(r + 1, g.R, () => m.view)
            paused += performance.now() - t
          }
          opts.progress?.((r + 1) / g.R)
        }
        const compute_ms = performance.now() - t0 - paused
        return { ...m.result(), duplicates: m.duplicates, compute_ms, ...(checkpoints && { checkpoints: checkpoints.report() }) }
      } finally {
        signal?.removeEventListener('abort', onAbort)
      }
    },
    async dispose() {
      await pool?.terminate()
      pool = undefined
    },
  }
}
