// The CPU backends: one engine per backend and data set, holding the workspace (shared memory or
// WebAssembly memory) and the worker pool across repeats, so that timing a run times its stages.
//
//   const engine = await createCpuCorrelationEngine('workers-simd', series, 'f64', { signal })
//   const ms = await engine.run()          // per stage; or run({ m, n }) on a prefix
//   const r = engine.matrix()              // m × m, valid until dispose
import { availableParallelism } from 'node:os'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { type CpuCorrelationBackend, type Precision, type Stage, STAGES } from '../../../shared/workloads/correlation/types'
import { WorkerPool } from '../../workers/pool'
import { rowChunks, tileChunks, triangleChunks } from './cpu-layout'
import type { SeriesMatrix } from './series-matrix'
import { type WasmWorkspace, WasmKernels, loadCorrelationWasm, wasmWorkspace } from './simd/wasm-module'
import { type RunSize, type TsWorkspace, tsKernels, tsWorkspace } from './ts-kernels'

export const CPU_BACKENDS: readonly CpuCorrelationBackend[] = ['serial', 'simd', 'workers', 'workers-simd']

export type Workspace = TsWorkspace | WasmWorkspace

/** One chunk of one stage, as a worker receives it. */
export interface StageTask {
  workspace: Workspace
  stage: Stage
  size: RunSize
  from: number
  to: number
}

export interface CpuCorrelationEngine {
  readonly backend: CpuCorrelationBackend
  readonly threads: number
  /**
   * Steps 2–5 on the first size.m series' first size.n samples (default all); milliseconds per
   * stage. `progress` hears the run's fraction done as its chunks finish, each stage weighted by its
   * arithmetic (the cross products, m²n/2, are nearly all of it).
   */
  run(size?: RunSize, progress?: (fraction: number) => void): Promise<Record<Stage, number>>
  /** The m × m matrix of the last run (stride m; a prefix run fills its top-left corner). */
  matrix(): Float64Array | Float32Array
  dispose(): Promise<void>
}

export interface CpuEngineOptions {
  /** Threads of the workers backends; default os.availableParallelism(). */
  threads?: number
  /** Aborting stops the workers at once; the run rejects with 'cancelled'. */
  signal?: AbortSignal
}

/** Runs one stage's chunks: here (serial, simd) or one task per chunk on the pool (workers, workers-simd). */
/** Runs a stage's chunks, calling `done` as each finishes (chunks are of about equal work). */
type Runner = (stage: Stage, size: RunSize, chunks: [number, number][], done: (from: number, to: number) => void) => Promise<void>

/** The kernels of a workspace on this thread. */
export function kernelsFor(ws: Workspace): Record<Stage, (size: RunSize, from: number, to: number) => void> {
  if (ws.kind === 'ts')
    return {
      means: (s, a, b) => tsKernels.means(ws, s, a, b),
      squares: (s, a, b) => tsKernels.squares(ws, s, a, b),
      cross: (s, a, b) => tsKernels.cross(ws, s, a, b),
      coefficients: (s, a, b) => tsKernels.coefficients(ws, s, a, b),
    }
  const k = new WasmKernels(ws)
  return { means: k.means.bind(k), squares: k.squares.bind(k), cross: k.cross.bind(k), coefficients: k.coefficients.bind(k) }
}

export async function createCpuCorrelationEngine(
  backend: CpuCorrelationBackend,
  series: SeriesMatrix,
  precision: Precision,
  options: CpuEngineOptions = {},
): Promise<CpuCorrelationEngine> {
  const { signal } = options
  throwIfAborted(signal)
  const parallel = backend === 'workers' || backend === 'workers-simd'
  const threads = parallel ? (options.threads ?? availableParallelism()) : 1
  if (!Number.isInteger(threads) || threads < 1) throw new ApiError('invalid-argument', `threads must be a positive integer, got ${threads}`)
  const { values, m, n, constant } = series
  const simd = backend === 'simd' || backend === 'workers-simd'
  const workspace: Workspace = simd ? wasmWorkspace(await loadCorrelationWasm(), values, m, n, precision, constant) : tsWorkspace(values, m, n, precision, constant)

  let pool: WorkerPool | undefined
  let runner: Runner
  if (parallel) {
    const p = (pool = new WorkerPool('correlation-worker', threads))
    // Every thread starts and instantiates its kernels now, not in the first timed stage: tasks
    // sent together go one to each idle worker.
    try {
      await Promise.all(Array.from({ length: threads }, () => p.run<void>('warm', workspace)))
    } catch (e) {
      await p.terminate()
      throw e
    }
    runner = async (stage, size, chunks, done) => {
      await Promise.all(chunks.map(([from, to]) => p.run<void>('stage', { workspace, stage, size, from, to } satisfies StageTask).then(() => done(from, to))))
    }
  } else {
    const kernels = kernelsFor(workspace)
    runner = async (stage, size, chunks, done) => {
      for (const [from, to] of chunks) {
        // Yield so that an abort is seen between chunks.
        await new Promise((resolve) => setImmediate(resolve))
        throwIfAborted(signal)
        kernels[stage](size, from, to)
        done(from, to)
      }
    }
  }
  const onAbort = () => void pool?.terminate()
  signal?.addEventListener('abort', onAbort, { once: true })
  let disposed = false

  return {
    backend,
    threads,
    async run(size = { m, n }, progress) {
      if (disposed) throw new ApiError('internal', `the ${backend} correlation engine was disposed`)
      if (!(size.m >= 2 && size.m <= m && size.n >= 2 && size.n <= n))
        throw new ApiError('invalid-argument', `run size ${size.m} × ${size.n} is outside 2…${m} series × 2…${n} samples`)
      // Chunks: a few per thread for the uneven stages, so a slow thread does not hold the others.
      const plan: [Stage, [number, number][]][] = [
        ['means', rowChunks(size.m, threads)],
        ['squares', rowChunks(size.m, threads)],
        ['cross', tileChunks(size.m, parallel ? threads * 4 : 16)],
        ['coefficients', triangleChunks(size.m, parallel ? threads * 2 : 4)],
      ]
      const ms = {} as Record<Stage, number>
      // Each stage's share of the run: its multiply-adds (means and squares m·n, cross m²n/2, coefficients m²/2).
      const work: Record<Stage, number> = { means: size.m * size.n, squares: size.m * size.n, cross: (size.m * size.m * size.n) / 2, coefficients: (size.m * size.m) / 2 }
      const all = STAGES.reduce((sum, st) => sum + work[st], 0)
      let before = 0
      for (const [stage, chunks] of plan) {
        throwIfAborted(signal)
        const t = performance.now()
        let finished = 0
        await runner(stage, size, chunks, () => progress?.((before + (work[stage] * ++finished) / chunks.length) / all))
        before += work[stage]
        ms[stage] = performance.now() - t
      }
      throwIfAborted(signal)
      return ms
    },
    matrix() {
      if (workspace.kind === 'ts') return workspace.precision === 'f64' ? new Float64Array(workspace.c) : new Float32Array(workspace.c)
      const memory = workspace.memory.buffer as ArrayBuffer
      return workspace.precision === 'f64' ? new Float64Array(memory, workspace.ptr.c, m * m) : new Float32Array(memory, workspace.ptr.c, m * m)
    },
    async dispose() {
      if (disposed) return
      disposed = true
      signal?.removeEventListener('abort', onAbort)
      await pool?.terminate()
    },
  }
}
