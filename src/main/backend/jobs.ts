// Every long operation is a job: an id, throttled progress events, cancellation through an
// AbortSignal, and a result envelope or an error. GPU jobs run one at a time per device.
import { EventEmitter } from 'node:events'
import { randomUUID } from 'node:crypto'
import { ApiError } from '../../shared/errors'
import { throwIfAborted } from '../../shared/cancel'
import { phaseKey, type JobEvent, type JobProgress } from '../../shared/jobs'
import type { WorkloadId } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'

/** What the job manager gives a job: its signal and its (throttled) progress. */
export interface JobControl {
  signal: AbortSignal
  progress(p: JobProgress): void
}

export interface JobSpec {
  workload: WorkloadId
  /** 'gpu' jobs are serialized: one device, one job at a time. */
  lane: 'gpu' | 'cpu'
  run(control: JobControl): Promise<ResultEnvelope>
}

interface Job {
  workload: WorkloadId
  controller: AbortController
  /** Settles with the result or the ApiError; kept a while after the job ends. */
  outcome: Promise<unknown>
  finished: boolean
}

const PROGRESS_INTERVAL_MS = 100
/** Finished jobs whose outcome can still be asked for. */
const KEEP_FINISHED = 50

export class JobManager extends EventEmitter<{ event: [JobEvent] }> {
  private readonly jobs = new Map<string, Job>()
  private gpuLane: Promise<unknown> = Promise.resolve()

  start(spec: JobSpec): string {
    const { workload } = spec
    const jobId = randomUUID()
    const controller = new AbortController()
    let lastEmit = 0
    let lastPhase = ''
    const control: JobControl = {
      signal: controller.signal,
      progress: (p) => {
        // Throttled, but every new phase is reported, however short.
        const now = Date.now()
        const phase = phaseKey(p.phase)
        if (p.fraction < 1 && phase === lastPhase && now - lastEmit < PROGRESS_INTERVAL_MS) return
        lastEmit = now
        lastPhase = phase
        this.emit('event', { type: 'progress', jobId, workload, ...p })
      },
    }
    const execute = async () => {
      throwIfAborted(controller.signal)
      return spec.run(control)
    }
    const job: Job = { workload, controller, outcome: Promise.resolve(), finished: false }
    job.outcome = (spec.lane === 'gpu' ? this.queueOnGpu(execute, controller.signal) : execute()).then(
      (envelope) => {
        // A cancelled job that kept results ends as cancelled, with them.
        if (envelope.partial) this.finish(job, { type: 'failed', jobId, workload, error: new ApiError('cancelled', 'cancelled').toJSON(), partial: envelope })
        else this.finish(job, { type: 'done', jobId, workload, envelope })
        return envelope
      },
      (e: unknown) => {
        const error = controller.signal.aborted ? new ApiError('cancelled', 'cancelled') : ApiError.from(e)
        this.finish(job, { type: 'failed', jobId, workload, error: error.toJSON() })
        throw error
      },
    )
    job.outcome.catch(() => undefined) // observed through events or result()
    this.jobs.set(jobId, job)
    return jobId
  }

  /** Asks a job to stop; its 'failed' event follows with code 'cancelled'. */
  cancel(jobId: string): boolean {
    const job = this.jobs.get(jobId)
    if (!job || job.finished) return false
    job.controller.abort()
    return true
  }

  /** Resolves with the job's envelope (`partial` when cancelled after some results), rejects with its ApiError. */
  result(jobId: string): Promise<ResultEnvelope> {
    const job = this.jobs.get(jobId)
    if (!job) return Promise.reject(new ApiError('invalid-argument', `no job ${jobId}`))
    return job.outcome as Promise<ResultEnvelope>
  }

  cancelAll(): void {
    for (const job of this.jobs.values()) job.controller.abort()
  }

  /** Runs `fn` after the GPU jobs ahead; a job cancelled while it waits ends at once. */
  private queueOnGpu<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    let started = false
    const start = () => {
      started = true
      return fn()
    }
    const next = this.gpuLane.then(start, start)
    this.gpuLane = next.catch(() => undefined)
    const cancelledWhileWaiting = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => !started && reject(new ApiError('cancelled', 'cancelled')), { once: true }),
    )
    return Promise.race([next, cancelledWhileWaiting])
  }

  private finish(job: Job, event: JobEvent): void {
    job.finished = true
    const finished = [...this.jobs].filter(([, j]) => j.finished)
    for (const [id] of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(id)
    this.emit('event', event)
  }
}
