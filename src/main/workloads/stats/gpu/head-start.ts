// The `gpu` backend's head start: its device opens, its kernels compile and its columns upload
// while the file loads, so that they overlap reading the file instead of following it.
//
//   const start = new GpuHeadStart(columns.length, precision, ctx)
//   await loadCsv(path, { columns, progress: () => start.loading(), placed: (prefixes) => start.grow(prefixes) })
//   const { engine, columns } = await start.ready(values)   // the rest of the upload
import { availableParallelism } from 'node:os'
import type { Precision } from '../../../../shared/workloads/stats/types'
import type { JobContext } from '../../../engine'
import type { PreparedColumn } from '../cpu-engine'
import { type ColumnStream, type GpuStatsEngine, type GpuStatsEngineOptions, createGpuStatsEngine } from './gpu-engine'

/**
 * Threads for the CSV loader while a head start runs beside it: on 8 or more cores a quarter are
 * left to the GPU driver's and Dawn's own threads, which open the device and take the uploads
 * during the load. On an H100 machine (16 cores) the load with 16 threads took 552–635 ms against
 * 381–402 ms without the GPU; with 12, 492–560 ms, and `paralab stats --backend gpu` ~0.1 s less
 * in all (docs/benchmarks/history.md).
 */
export function loaderThreadsBesideGpu(cores = availableParallelism()): number {
  return cores >= 8 ? cores - Math.floor(cores / 4) : cores
}

export class GpuHeadStart {
  private engine: Promise<GpuStatsEngine> | undefined
  private streams: ColumnStream[] | undefined
  private latest: Float64Array[] | undefined
  private scheduled = false

  constructor(
    private readonly columns: number,
    private readonly precision: Precision,
    private readonly ctx: Pick<JobContext, 'gpu' | 'signal'>,
    private readonly options: Pick<GpuStatsEngineOptions, 'segmentValues'> = {},
  ) {}

  /**
   * The loader has begun (its first progress, reported just before it starts its threads): the
   * device opens on the next turn of the event loop, once those threads have their first ranges.
   * Opening runs the driver's and Dawn's set-up on this thread; begun before the load, it held the
   * loader's start back by as long (165–270 ms on an H100 machine).
   */
  loading(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => void this.begin())
  }

  /** Opens the device, then compiles every kernel and starts the uploads; at once, unlike loading(). */
  begin(): Promise<GpuStatsEngine> {
    if (!this.engine) {
      const { ctx, options } = this
      this.engine = (async () => createGpuStatsEngine({ ...options, signal: ctx.signal, gpu: await ctx.gpu() }))()
      // A failure shows in ready(); until then the load goes on without the upload.
      this.engine
        .then((engine) => {
          this.open(engine)
          // Compiled beside the load rather than after it; the job still waits on (and reports) any
          // compilation left when it computes.
          engine.compileKernels(this.precision).catch(() => {})
        })
        .catch(() => {})
    }
    return this.engine
  }

  /** Each column's values loaded so far. */
  grow(prefixes: Float64Array[]): void {
    this.latest = prefixes
    this.streams?.forEach((s, i) => s.grow(prefixes[i]))
  }

  /** The engine and the prepared columns, once `values` (each column's final values) are loaded. */
  async ready(values: Float64Array[]): Promise<{ engine: GpuStatsEngine; columns: PreparedColumn[] }> {
    const engine = await this.begin()
    const streams = this.open(engine)
    return { engine, columns: await Promise.all(streams.map((s, i) => s.finish(values[i]))) }
  }

  /** Stops the uploads and frees the engine (a load that failed, a job that ended before the gpu ran). */
  async cancel(): Promise<void> {
    const engine = await this.engine?.catch(() => undefined)
    await Promise.all((this.streams ?? []).map((s) => s.cancel()))
    await engine?.dispose()
  }

  private open(engine: GpuStatsEngine): ColumnStream[] {
    if (!this.streams) {
      this.streams = Array.from({ length: this.columns }, () => engine.stream(this.precision))
      if (this.latest) this.grow(this.latest)
    }
    return this.streams
  }
}
