// The `gpu` backend's head start: its device, kernels and column uploads begin with the load,
// so that they overlap reading the file instead of following it.
//
//   const start = new GpuHeadStart(columns.length, precision, ctx)
//   await loadCsv(path, { columns, placed: (prefixes) => start.grow(prefixes) })
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
 * in all (docs/benchmarks.md).
 */
export function loaderThreadsBesideGpu(cores = availableParallelism()): number {
  return cores >= 8 ? cores - Math.floor(cores / 4) : cores
}

export class GpuHeadStart {
  private readonly engine: Promise<GpuStatsEngine>
  private streams: ColumnStream[] | undefined
  private latest: Float64Array[] | undefined

  constructor(
    private readonly columns: number,
    private readonly precision: Precision,
    ctx: Pick<JobContext, 'gpu' | 'signal'>,
    options: Pick<GpuStatsEngineOptions, 'segmentValues'> = {},
  ) {
    this.engine = (async () => createGpuStatsEngine({ ...options, signal: ctx.signal, gpu: await ctx.gpu() }))()
    // A failure shows in ready(); until then the load goes on without the upload.
    this.engine.then((engine) => this.open(engine)).catch(() => {})
  }

  /** Each column's values loaded so far. */
  grow(prefixes: Float64Array[]): void {
    this.latest = prefixes
    this.streams?.forEach((s, i) => s.grow(prefixes[i]))
  }

  /** The engine and the prepared columns, once `values` (each column's final values) are loaded. */
  async ready(values: Float64Array[]): Promise<{ engine: GpuStatsEngine; columns: PreparedColumn[] }> {
    const engine = await this.engine
    const streams = this.open(engine)
    return { engine, columns: await Promise.all(streams.map((s, i) => s.finish(values[i]))) }
  }

  /** Stops the uploads and frees the engine (a load that failed, a job that ended before the gpu ran). */
  async cancel(): Promise<void> {
    const engine = await this.engine.catch(() => undefined)
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
