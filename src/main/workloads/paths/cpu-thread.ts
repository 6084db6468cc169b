// Every CPU backend solves on a thread of its own (paths-solve-worker.ts), never on the main one:
// a server keeps answering while a serial run takes minutes, a cancel terminates the thread at
// once, and the matrices the thread made go with it rather than waiting for a garbage collection.
import { availableParallelism } from 'node:os'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import type { PathsBackend } from '../../../shared/workloads/paths/types'
import { WorkerPool } from '../../workers/pool'
import { discardRoundCheckpoint, type RoundCheckpointTask } from './checkpoint'
import type { RunSpec } from './plan'
import type { Problem } from './problem'
import type { SolveOptions, Solved, Solver } from './solver-contract'

/** What the thread is asked: the run, its edges (not the potentials) and where it writes its progress. */
export interface ThreadSolveTask {
  spec: RunSpec
  threads?: number
  problem: Omit<Problem, 'potential'>
  paths: boolean
  /** Float64 cell: the fraction of the solve done. */
  progress: SharedArrayBuffer
  checkpoint?: RoundCheckpointTask
}

const PROGRESS_POLL_MS = 100

export function cpuThreadSolver(spec: RunSpec & { backend: Exclude<PathsBackend, 'gpu'> }, threads?: number): Solver {
  // The thread lives as long as the solver: repeated solves reuse it, and its worker threads.
  let pool: WorkerPool | undefined
  const parallel = spec.backend === 'workers' || spec.backend === 'workers-simd'
  return {
    backend: spec.backend,
    ...(spec.block !== undefined && { block: spec.block }),
    ...(parallel && { threads: threads ?? availableParallelism() }),
    async solve(p: Problem, paths: boolean, opts: SolveOptions = {}): Promise<Solved> {
      const { signal } = opts
      throwIfAborted(signal)
      pool ??= new WorkerPool('paths-solve-worker', 1)
      const running = pool
      const cell = new SharedArrayBuffer(8)
      const fraction = new Float64Array(cell)
      const poll = setInterval(() => opts.progress?.(fraction[0]), PROGRESS_POLL_MS)
      let stopping: Promise<void> | undefined
      const onAbort = () => {
        stopping = running.terminate()
        if (pool === running) pool = undefined
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      try {
        const { potential: _, ...problem } = p
        const task: ThreadSolveTask = { spec, ...(threads !== undefined && { threads }), problem, paths, progress: cell, ...(opts.checkpoint && { checkpoint: opts.checkpoint }) }
        const solved = await running.run<Solved>('solve', task)
        opts.progress?.(1)
        return solved
      } catch (e) {
        // A thread stopped while writing a checkpoint leaves its pending folder: not a checkpoint, and removed.
        if (opts.checkpoint) {
          await stopping?.catch(() => {})
          await discardRoundCheckpoint(opts.checkpoint).catch(() => {})
        }
        throwIfAborted(signal)
        throw ApiError.from(e)
      } finally {
        clearInterval(poll)
        signal?.removeEventListener('abort', onAbort)
      }
    },
    async dispose() {
      await pool?.terminate()
      pool = undefined
    },
  }
}
