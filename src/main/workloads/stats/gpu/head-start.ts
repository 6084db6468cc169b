// The `gpu` backend's head start: its device, kernels and column uploads begin with the load,
// so that they overlap reading the file instead of following it.
//
//   const start = new GpuHeadStart(columns.length, precision, ctx)
//   await loadCsv(path, { columns, placed: (prefixes) => start.grow(prefixes) })
//   const { engine, columns } = await start.ready(values)   // the rest of the upload
import type { Precision } from '../../../../shared/workloads/stats/types'
import type { JobContext } from '../../../engine'
import type { PreparedColumn } from '../cpu-engine'
import { type ColumnStream, type GpuStatsEngine, type GpuStatsEngineOptions, createGpuStatsEngine } from './gpu-engine'

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
