// CPU statistics engines: one per backend, holding its worker pool and SIMD instance across
// repeats so that timing `compute` measures the computation only.
//
//   const engine = await createCpuStatsEngine('workers-simd', { signal })
//   const column = await engine.prepare(values, 'f64') // copies into shared/wasm memory if needed
//   const stats = await engine.compute(column)          // or compute(column, rows) for a prefix
//   engine.release(column); await engine.dispose()
import { availableParallelism } from 'node:os'
import { ApiError } from '../../../shared/errors'
import type { BackendColumnStats, Precision, StatsBackend } from '../../../shared/workloads/stats/types'
import { WORKER_BASE_BYTES, threadsForMemory } from '../../workers/memory'
import { WorkerPool } from '../../workers/pool'
import { columnStats } from './column-stats'
import { type ColumnRef, REGION_BYTES, REGION_WORDS, bytesPerValue } from './slice-kernels'
import { WasmKernels } from './simd/wasm-kernels'
import { WasmHeap, copyIntoWasm, createStatsMemory, loadStatsWasm, regionPtr } from './simd/wasm-module'
import { LocalRunner, PoolRunner, type SliceRunner } from './slice-runner'
import { TsKernels } from './js-kernels'

export type CpuStatsBackend = Exclude<StatsBackend, 'gpu'>
export const CPU_STATS_BACKENDS: readonly CpuStatsBackend[] = ['serial', 'simd', 'workers', 'workers-simd']

/** Memory the `workers*` backends' threads may take together (heaps and scratch regions), besides the columns. */
export const STATS_THREADS_BUDGET_BYTES = 128 * 1024 * 1024

/** Threads of the `workers*` backends: one per core, as many as STATS_THREADS_BUDGET_BYTES allows. */
export function defaultStatsThreads(cores = availableParallelism()): number {
  return threadsForMemory(cores, WORKER_BASE_BYTES + REGION_BYTES, STATS_THREADS_BUDGET_BYTES)
}

export interface CpuStatsEngineOptions {
  /** Worker threads of the `workers*` backends; default defaultStatsThreads(). */
  threads?: number
  /** Aborting stops the workers at once; every pending and later compute rejects with code 'cancelled'. */
  signal?: AbortSignal
}

/** A column made ready for one engine and precision (f32 columns hold the values rounded to f32). */
export interface PreparedColumn {
  readonly n: number
  readonly precision: Precision
}

export interface CpuStatsEngine {
  readonly backend: CpuStatsBackend
  /** Threads the computation runs on. */
  readonly threads: number
  readonly columnsTogether: boolean
  prepare(values: Float64Array, precision: Precision): Promise<PreparedColumn>
  /** Statistics of the column's first `length` values (default all); `progress` hears of each pass over them. */
  compute(column: PreparedColumn, length?: number, progress?: (fraction: number) => void): Promise<BackendColumnStats>
  /** Statistics of several columns, one after another (each uses every thread). */
  computeMany(columns: readonly PreparedColumn[], lengths?: readonly number[], progress?: (fraction: number) => void): Promise<BackendColumnStats[]>
  /** Frees the column's copy, if the engine made one. */
  release(column: PreparedColumn): void
  dispose(): Promise<void>
  /** Starts every thread and instantiates its kernels, e.g. while the input loads (compute would otherwise do it first). */
  warm(): Promise<void>
}

class Column implements PreparedColumn {
  released = false
  constructor(
    readonly owner: Engine,
    readonly ref: ColumnRef,
    readonly bytes: number,
  ) {}
  get n(): number {
    return this.ref.length
  }
  get precision(): Precision {
    return this.ref.precision
  }
}

/** Where an engine keeps columns: as given (or copied to shared memory), or in wasm memory. */
interface ColumnStore {
  place(values: Float64Array, precision: Precision): Promise<{ ref: ColumnRef; bytes: number }>
  free(ref: ColumnRef, bytes: number): void
  /** The first n values of an f64 column, read in place. */
  view(ref: ColumnRef, n: number): Float64Array
}

let nextWorkspaceId = 1

export async function createCpuStatsEngine(backend: CpuStatsBackend, options: CpuStatsEngineOptions = {}): Promise<CpuStatsEngine> {
  const { signal } = options
  if (signal?.aborted) throw new ApiError('cancelled', 'cancelled')
  const parallel = backend === 'workers' || backend === 'workers-simd'
  const threads = parallel ? (options.threads ?? defaultStatsThreads()) : 1
  if (!Number.isInteger(threads) || threads < 1) throw new ApiError('invalid-argument', `threads must be a positive integer, got ${threads}`)
  const simd = backend === 'simd' || backend === 'workers-simd'

  // The kernels first: a failure to load them leaves no threads behind.
  const module = simd ? await loadStatsWasm() : undefined
  const pool = parallel ? new WorkerPool('stats-worker', threads) : undefined
  let store: ColumnStore
  let runner: SliceRunner
  if (module) {
    const memory = createStatsMemory(threads)
    const heap = new WasmHeap(memory, regionPtr(threads))
    if (pool) {
      const pooled = new PoolRunner(pool, threads, { kind: 'wasm', id: nextWorkspaceId++, module, memory })
      runner = pooled
      store = wasmStore(heap, memory, (values, precision, ptr) => pooled.copyIn(values, precision, ptr))
    } else {
      runner = new LocalRunner(new WasmKernels(module, memory), () => new Int32Array(memory.buffer, regionPtr(0), REGION_WORDS), signal)
      store = wasmStore(heap, memory, async (values, precision, ptr) => copyIntoWasm(values, memory, ptr, precision))
    }
  } else {
    store = bufferStore(parallel)
    if (pool) runner = new PoolRunner(pool, threads, { kind: 'ts', regions: new SharedArrayBuffer(threads * REGION_BYTES) })
    else {
      const regions = new Int32Array(REGION_WORDS)
      runner = new LocalRunner(new TsKernels(regions), () => regions, signal)
    }
  }
  return new Engine(backend, threads, store, runner, pool, signal)
}

class Engine implements CpuStatsEngine {
  readonly columnsTogether = false
  private disposed = false
  private queue: Promise<unknown> = Promise.resolve()
  private readonly onAbort = () => void this.pool?.terminate()

  constructor(
    readonly backend: CpuStatsBackend,
    readonly threads: number,
    private readonly store: ColumnStore,
    private readonly runner: SliceRunner,
    private readonly pool: WorkerPool | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true })
  }

  async prepare(values: Float64Array, precision: Precision): Promise<PreparedColumn> {
    this.assertLive()
    const { ref, bytes } = await this.store.place(values, precision)
    return new Column(this, ref, bytes)
  }

  compute(column: PreparedColumn, length = column.n, progress?: (fraction: number) => void): Promise<BackendColumnStats> {
    // One computation at a time: they share the slices' scratch regions.
    const run = this.queue.then(() => this.computeNow(column, length, progress))
    this.queue = run.catch(() => undefined)
    return run
  }

  async computeMany(columns: readonly PreparedColumn[], lengths?: readonly number[], progress?: (fraction: number) => void): Promise<BackendColumnStats[]> {
    if (lengths && lengths.length !== columns.length) throw new ApiError('invalid-argument', `${lengths.length} lengths for ${columns.length} columns`)
    const out: BackendColumnStats[] = []
    for (const [i, column] of columns.entries()) out.push(await this.compute(column, lengths?.[i], progress && ((f) => progress((i + f) / columns.length))))
    return out
  }

  private async computeNow(column: PreparedColumn, length: number, progress?: (fraction: number) => void): Promise<BackendColumnStats> {
    this.assertLive()
    if (this.signal?.aborted) throw new ApiError('cancelled', 'cancelled')
    const c = this.own(column)
    if (!Number.isInteger(length) || length < 0 || length > c.n)
      throw new ApiError('invalid-argument', `length ${length} is outside 0…${c.n} (the prepared column's values)`)
    return columnStats(this.runner, c.ref, length, () => this.store.view(c.ref, length), progress)
  }

  release(column: PreparedColumn): void {
    const c = this.own(column)
    c.released = true
    this.store.free(c.ref, c.bytes)
  }

  warm(): Promise<void> {
    this.assertLive()
    return this.runner.warm()
  }

  async dispose(): Promise<void> {
    if (this.disposed) return
    this.disposed = true
    this.signal?.removeEventListener('abort', this.onAbort)
    await this.pool?.terminate()
  }

  private own(column: PreparedColumn): Column {
    if (!(column instanceof Column) || column.owner !== this) throw new ApiError('invalid-argument', `the column was prepared by another engine`)
    if (column.released) throw new ApiError('invalid-argument', 'the column was released')
    return column
  }

  private assertLive(): void {
    if (this.disposed) throw new ApiError('internal', `the ${this.backend} statistics engine was disposed`)
  }
}

/** Typed-array columns; the workers need them in shared memory, so others are copied there once. */
function bufferStore(shared: boolean): ColumnStore {
  return {
    async place(values, precision) {
      const n = values.length
      const bytes = n * bytesPerValue(precision)
      if (precision === 'f64' && (!shared || values.buffer instanceof SharedArrayBuffer))
        return { ref: { precision, length: n, where: 'buffer', buffer: values.buffer, byteOffset: values.byteOffset }, bytes: 0 }
      const buffer = shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes)
      if (precision === 'f64') new Float64Array(buffer).set(values)
      else new Float32Array(buffer).set(values) // rounds to nearest f32, as Math.fround
      return { ref: { precision, length: n, where: 'buffer', buffer, byteOffset: 0 }, bytes }
    },
    free() {
      // Garbage collected with the column.
    },
    view(ref, n) {
      if (ref.where !== 'buffer') throw new Error('a buffer store holds columns in array buffers')
      return new Float64Array(ref.buffer, ref.byteOffset, n)
    },
  }
}

/** Columns in wasm memory, placed by the heap and copied in by `copy` (over the pool's threads where there is one). */
function wasmStore(heap: WasmHeap, memory: WebAssembly.Memory, copy: (values: Float64Array, precision: Precision, ptr: number) => Promise<void>): ColumnStore {
  return {
    async place(values, precision) {
      const n = values.length
      const bytes = n * bytesPerValue(precision)
      const ptr = heap.alloc(bytes)
      try {
        await copy(values, precision, ptr)
      } catch (e) {
        heap.release(ptr, bytes)
        throw e
      }
      return { ref: { precision, length: n, where: 'wasm', ptr }, bytes }
    },
    free(ref, bytes) {
      if (ref.where === 'wasm') heap.release(ref.ptr, bytes)
    },
    view(ref, n) {
      if (ref.where !== 'wasm') throw new Error('a wasm store holds columns in wasm memory')
      return new Float64Array(memory.buffer, ref.ptr, n)
    },
  }
}

/** One-off computation: an engine for one column, disposed afterwards. */
export async function computeColumnStats(
  values: Float64Array,
  options: CpuStatsEngineOptions & { backend: CpuStatsBackend; precision?: Precision },
): Promise<BackendColumnStats> {
  const engine = await createCpuStatsEngine(options.backend, options)
  try {
    return await engine.compute(await engine.prepare(values, options.precision ?? 'f64'))
  } finally {
    await engine.dispose()
  }
}
