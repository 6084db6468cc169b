// A CPU backend's head start: its worker threads start and its WebAssembly kernels compile and
// instantiate while the file loads, instead of in its first computation after the load.
//
//   const start = new CpuHeadStart('workers-simd', signal)
//   await loadCsv(path, { progress: () => start.loading(), ... })
//   const engine = (await start.take('workers-simd')) ?? (await createCpuStatsEngine(...))
//   await start.cancel()   // frees an engine nobody took (a failed load, a job cancelled)
import { type CpuStatsBackend, type CpuStatsEngine, createCpuStatsEngine } from './cpu-engine'
import { timeSpan } from '../../timeline'

export class CpuHeadStart {
  private engine: Promise<CpuStatsEngine> | undefined
  private state: 'waiting' | 'scheduled' | 'taken' = 'waiting'

  constructor(
    readonly backend: CpuStatsBackend,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * The loader has begun (its first progress, reported just before it starts its threads): the
   * engine starts on the next turn of the event loop, once those threads have their first ranges.
   */
  loading(): void {
    if (this.state !== 'waiting') return
    this.state = 'scheduled'
    setImmediate(() => this.begin())
  }

  /** The engine begun for `backend`, once (the caller disposes it); undefined for another backend or a second call. */
  take(backend: CpuStatsBackend): Promise<CpuStatsEngine> | undefined {
    if (backend !== this.backend || this.state === 'taken') return undefined
    const engine = this.begin()
    this.state = 'taken'
    this.engine = undefined
    return engine
  }

  private begin(): Promise<CpuStatsEngine> | undefined {
    if (this.state === 'taken') return undefined
    this.engine ??= timeSpan(`${this.backend}: starting its engine (threads, WebAssembly)`, () =>
      createCpuStatsEngine(this.backend, { signal: this.signal }).then(async (engine) => {
        // A thread that fails to warm fails the same way in the first computation, which reports it.
        await engine.warm().catch(() => {})
        return engine
      }),
    )
    // A failure shows in take(); until then the load goes on.
    this.engine.catch(() => {})
    return this.engine
  }

  /** Frees the engine if it was begun and nobody took it. */
  async cancel(): Promise<void> {
    const engine = this.state === 'taken' ? undefined : this.engine
    this.state = 'taken'
    this.engine = undefined
    await (await engine?.catch(() => undefined))?.dispose()
  }
}
