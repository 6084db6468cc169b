// Runs a kernel over the slices of a column: all on this thread (serial, simd) or one slice per
// worker of a pool (workers, workers-simd). Partials come back in slice order, so combining them
// is deterministic for a given thread count.
import { ApiError } from '../../../shared/errors'
import type { Precision } from '../../../shared/workloads/stats/types'
import type { WorkerPool } from '../../workers/pool'
import { type ColumnRef, type PassPartial, type PassSpec, REGION_WORDS, type ScanPartial, type SliceKernels } from './slice-kernels'
import { copyIntoWasm, regionPtr } from './simd/wasm-module'

export interface SliceRunner {
  /** Slices (threads) available; a column of n values uses min(slices, n). */
  readonly slices: number
  scan(column: ColumnRef, n: number): Promise<ScanPartial[]>
  pass(column: ColumnRef, n: number, spec: PassSpec): Promise<PassPartial[]>
  /** What slice j's kernel left in its region, until the next call. */
  region(slice: number): Int32Array
  /** Readies every thread (started, kernels instantiated), so that the first computation is not slower. */
  warm(): Promise<void>
}

/** What a worker needs to run kernels on the engine's shared memory (see stats-worker.ts). */
export type Workspace =
  | { kind: 'ts'; regions: SharedArrayBuffer }
  | { kind: 'wasm'; id: number; module: WebAssembly.Module; memory: WebAssembly.Memory }

/** Values [start, end) of a column in shared memory, copied into the workspace's wasm memory from `ptr` on (see PoolRunner.copyIn). */
export interface CopyTask {
  workspace: Extract<Workspace, { kind: 'wasm' }>
  source: SharedArrayBuffer
  byteOffset: number
  precision: Precision
  ptr: number
  start: number
  end: number
}

export interface SliceTask {
  workspace: Workspace
  column: ColumnRef
  slice: number
  start: number
  end: number
  spec?: PassSpec
}

/** Bounds of `slice` among `slices` over n values; long slices start on a 16-value boundary for the SIMD loops. */
export function sliceBounds(n: number, slices: number, slice: number): [number, number] {
  const at = (j: number) => (j === slices ? n : n >= 64 * slices ? Math.floor((j * n) / slices / 16) * 16 : Math.floor((j * n) / slices))
  return [at(slice), at(slice + 1)]
}

export function slicesFor(n: number, slices: number): number {
  return Math.max(1, Math.min(slices, n))
}

/** One slice on the calling thread. Yields to the event loop before each kernel so an abort is seen. */
export class LocalRunner implements SliceRunner {
  readonly slices = 1

  constructor(
    private readonly kernels: SliceKernels,
    private readonly regionView: () => Int32Array,
    private readonly signal?: AbortSignal,
  ) {}

  async scan(column: ColumnRef, n: number): Promise<ScanPartial[]> {
    await this.checkpoint()
    return [this.kernels.scan(column, 0, n, 0)]
  }

  async pass(column: ColumnRef, n: number, spec: PassSpec): Promise<PassPartial[]> {
    await this.checkpoint()
    return [this.kernels.pass(column, 0, n, 0, spec)]
  }

  region(): Int32Array {
    return this.regionView()
  }

  async warm(): Promise<void> {
    // The calling thread's kernels were instantiated with the engine.
  }

  private async checkpoint(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve))
    if (this.signal?.aborted) throw new ApiError('cancelled', 'cancelled')
  }
}

/** One slice per worker; the workers see the column and the regions through shared memory. */
export class PoolRunner implements SliceRunner {
  constructor(
    private readonly pool: WorkerPool,
    readonly slices: number,
    private readonly workspace: Workspace,
  ) {}

  scan(column: ColumnRef, n: number): Promise<ScanPartial[]> {
    return this.runAll('scan', column, n)
  }

  pass(column: ColumnRef, n: number, spec: PassSpec): Promise<PassPartial[]> {
    return this.runAll('pass', column, n, spec)
  }

  region(slice: number): Int32Array {
    const ws = this.workspace
    return ws.kind === 'ts'
      ? new Int32Array(ws.regions, slice * REGION_WORDS * 4, REGION_WORDS)
      : new Int32Array(ws.memory.buffer, regionPtr(slice), REGION_WORDS)
  }

  /**
   * Copies a column into the wasm memory at `ptr` (rounded to f32 for f32 columns), a slice per
   * thread when the values are in shared memory, as the loader's columns are: the copy and the
   * first touch of the fresh pages were the main thread's largest cost between the load and the
   * results, and the threads sit idle meanwhile.
   */
  async copyIn(values: Float64Array, precision: Precision, ptr: number): Promise<void> {
    const ws = this.workspace
    if (ws.kind !== 'wasm') throw new ApiError('internal', 'only the wasm workspace holds copies of columns')
    if (!(values.buffer instanceof SharedArrayBuffer)) return copyIntoWasm(values, ws.memory, ptr, precision)
    const n = values.length
    const count = slicesFor(n, this.slices)
    const tasks: Promise<void>[] = []
    for (let slice = 0; slice < count; slice++) {
      const [start, end] = sliceBounds(n, count, slice)
      const task: CopyTask = { workspace: ws, source: values.buffer, byteOffset: values.byteOffset, precision, ptr, start, end }
      tasks.push(this.pool.run<void>('copy', task))
    }
    await Promise.all(tasks)
  }

  async warm(): Promise<void> {
    // One task per thread: the pool hands each to a different idle worker.
    await Promise.all(Array.from({ length: this.slices }, () => this.pool.run('warm', { workspace: this.workspace })))
  }

  private runAll<T>(task: 'scan' | 'pass', column: ColumnRef, n: number, spec?: PassSpec): Promise<T[]> {
    const count = slicesFor(n, this.slices)
    const tasks: Promise<T>[] = []
    for (let slice = 0; slice < count; slice++) {
      const [start, end] = sliceBounds(n, count, slice)
      const payload: SliceTask = { workspace: this.workspace, column, slice, start, end, spec }
      tasks.push(this.pool.run<T>(task, payload))
    }
    return Promise.all(tasks)
  }
}
