// What every shortest-paths backend offers the job: solve a problem (timed), return the V × V
// distances (and path keys), and release what it holds.
import type { GpuPlacement } from '../../../shared/gpu-placement'
import { throwIfAborted } from '../../../shared/cancel'
import type { GpuVariant, PathsBackend, RealArithmetic } from '../../../shared/workloads/paths/types'
import type { RoundCheckpointReport, RoundCheckpointTask } from './checkpoint'
import type { Problem } from './problem'

export interface SolveOptions {
  signal?: AbortSignal
  /** Fraction of this solve done, 0…1. */
  progress?: (fraction: number) => void
  /**
   * GPU: compute `repeat` times on the uploaded matrix, after untimed computations for `warmupMs`
   * (`bench paths`'s data-resident timing); compute_ms is then their median.
   */
  timing?: { repeat: number; warmupMs: number }
  /** Blocked CPU backends: write a checkpoint every few rounds, and resume from one (checkpoint.ts). */
  checkpoint?: RoundCheckpointTask
}

export interface Solved {
  /**
   * V × V, row-major: int32 (reweighted when the problem is), or for real weights f64 distances in
   * the graph's own weights, computed in `arithmetic` (real.ts).
   */
  d: Int32Array | Float64Array
  arithmetic?: RealArithmetic
  /** f32: the padded side the GPU computed on (its error bound depends on it). */
  side?: number
  /** With paths: the path keys (see matrix.ts). */
  key?: Uint32Array
  /** Duplicate edges met filling the matrix. */
  duplicates: number
  compute_ms: number
  /** With SolveOptions.timing: each timed computation. */
  compute_runs_ms?: number[]
  upload_ms?: number
  readback_ms?: number
  /** GPU: modelled bytes the kernels move to and from global memory. */
  bytes?: number
  /** Several GPUs (gpu/bands-solver.ts): the parts, the rounds, and the longest time a part's host spent waiting for and handing on pivot rows. */
  gpus?: number
  rounds?: number
  exchange_ms?: number
  /** Of exchange_ms, that part's copies of rows into and out of the shared-memory slots. */
  exchange_copy_ms?: number
  /** With SolveOptions.checkpoint: the round resumed from and the checkpoints written. */
  checkpoints?: RoundCheckpointReport
}

export interface Solver {
  readonly backend: PathsBackend
  readonly variant?: GpuVariant
  readonly block?: number
  /** The tuned variant's tile shape, when one was asked for. */
  readonly shape?: string
  readonly threads?: number
  /** GPUs of a run on several, and the note when its parts share GPUs (gpu/part-links.ts). */
  readonly gpus?: number
  readonly gpusNote?: string
  /** On several GPUs: where the first `parts` parts of the last solve were to compute and were seen computing (nvidia-smi, sampled while they computed). */
  observe?(parts: number): Promise<GpuPlacement>
  solve(p: Problem, paths: boolean, opts?: SolveOptions): Promise<Solved>
  /** GPU: compiles the kernels `solve` will use on `p`, so that the job can wait for them before its timed runs. */
  compile?(p: Problem, paths: boolean): Promise<void>
  dispose(): Promise<void>
}

/** How a run is named in tables, timings and charts: `serial`, `blocked B=64`, `gpu shared B=32`, `gpu tuned B=64 b64-k32`, `gpu tuned B=64 on 2 GPUs`. */
export function runName(s: Pick<Solver, 'backend' | 'variant' | 'block' | 'shape' | 'gpus'>): string {
  return [s.backend, s.variant, s.block !== undefined && `B=${s.block}`, s.shape, (s.gpus ?? 1) > 1 && `on ${s.gpus} GPUs`].filter(Boolean).join(' ')
}

/**
 * For long loops on the main thread: lets the event loop run every ~50 ms (so that a cancel
 * arrives) and then throws if the job was cancelled.
 */
export function yielder(signal?: AbortSignal): () => Promise<void> {
  let last = performance.now()
  return async () => {
    if (performance.now() - last < 50) return
    await new Promise((r) => setImmediate(r))
    throwIfAborted(signal)
    last = performance.now()
  }
}
