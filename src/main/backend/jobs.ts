// Every long operation is a job: an id, throttled progress events, cancellation through an
// AbortSignal, and a typed result or error. GPU jobs run one at a time per device.
import { EventEmitter } from 'node:events'
import { randomUUID } from 'node:crypto'
import { ApiError } from '../../shared/api'
import type { JobEvent, JobKind, JobParams, JobProgress, JobResults } from '../../shared/jobs'

export interface JobContext {
  signal: AbortSignal
  progress(p: JobProgress): void
}

export interface JobRunner<K extends JobKind> {
  /** 'gpu' jobs are serialized: one device, one job at a time. */
  lane: 'gpu' | 'cpu'
  run(params: JobParams[K], ctx: JobContext): Promise<JobResults[K]>
}

export type JobRunners = { [K in JobKind]: JobRunner<K> }

interface Running {
  kind: JobKind
  controller: AbortController
  done: Promise<unknown>
}

const PROGRESS_INTERVAL_MS = 100

export class JobManager extends EventEmitter<{ event: [JobEvent] }> {
  private readonly running = new Map<string, Running>()
  private gpuLane: Promise<unknown> = Promise.resolve()

  constructor(private readonly runners: JobRunners) {
    super()
  }

  start<K extends JobKind>(kind: K, params: JobParams[K]): string {
    const jobId = randomUUID()
    const controller = new AbortController()
    const runner = this.runners[kind] as JobRunner<K>
    let lastEmit = 0
    const ctx: JobContext = {
      signal: controller.signal,
      progress: (p) => {
        const now = Date.now()
        if (p.fraction < 1 && now - lastEmit < PROGRESS_INTERVAL_MS) return
        lastEmit = now
        this.emit('event', { type: 'progress', jobId, kind, ...p })
      },
    }
    const execute = async () => {
      if (controller.signal.aborted) throw new ApiError('cancelled', 'cancelled')
      return runner.run(params, ctx)
    }
    const done = (runner.lane === 'gpu' ? this.queueOnGpu(execute) : execute()).then(
      (result) => this.finish({ type: 'done', jobId, kind, result }),
      (e: unknown) => {
        const error = controller.signal.aborted ? new ApiError('cancelled', 'cancelled') : ApiError.from(e)
        this.finish({ type: 'failed', jobId, kind, error: error.toJSON() })
      },
    )
    this.running.set(jobId, { kind, controller, done })
    return jobId
  }

  /** Asks a job to stop; its 'failed' event follows with code 'cancelled'. */
  cancel(jobId: string): boolean {
    const job = this.running.get(jobId)
    if (!job) return false
    job.controller.abort()
    return true
  }

  /** Resolves with the job's result, rejects with its ApiError. */
  result<K extends JobKind>(jobId: string): Promise<JobResults[K]> {
    return new Promise((resolve, reject) => {
      const onEvent = (e: JobEvent) => {
        if (e.jobId !== jobId || e.type === 'progress') return
        this.off('event', onEvent)
        if (e.type === 'done') resolve(e.result as JobResults[K])
        else reject(new ApiError(e.error.code, e.error.message))
      }
      this.on('event', onEvent)
      if (!this.running.has(jobId)) {
        this.off('event', onEvent)
        reject(new ApiError('invalid-argument', `no running job ${jobId}`))
      }
    })
  }

  cancelAll(): void {
    for (const job of this.running.values()) job.controller.abort()
  }

  private queueOnGpu<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.gpuLane.then(fn, fn)
    this.gpuLane = next.catch(() => undefined)
    return next
  }

  private finish(event: JobEvent): void {
    this.running.delete(event.jobId)
    this.emit('event', event)
  }
}
