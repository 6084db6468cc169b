// Every long operation is a job: an id, throttled progress events, cancellation through an
// AbortSignal, and a result envelope or an error. Jobs run side by side, except on the GPU: a job
// takes the GPU lane when it first asks for the device and holds it until it ends, so GPU work runs
// one job at a time while jobs on CPU backends only (of any workload) never wait behind it.
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
  /**
   * Waits for this job's turn on the GPU, after the GPU jobs ahead, and holds it until the job ends;
   * later calls return at once. Rejects as cancelled when the job is cancelled while it waits.
   */
  gpuLane(): Promise<void>
}

export interface JobSpec {
  workload: WorkloadId
  /** 'gpu': the job may use the device, and takes the GPU lane when it does (gpuLane); 'cpu': it never does. */
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
  /** Settles when the last job to take the GPU lane releases it. */
  private gpuLane: Promise<void> = Promise.resolve()

  start(spec: JobSpec): string {
    const { workload } = spec
    const jobId = randomUUID()
    const controller = new AbortController()
    let lastEmit = 0
    let lastPhase = ''
    // The GPU lane, once asked for: released when the job settles.
    let lane: { turn: Promise<void>; release(): void } | undefined
    const control: JobControl = {
      signal: controller.signal,
      gpuLane: () => {
        if (spec.lane !== 'gpu') return Promise.reject(new ApiError('internal', `${workload} jobs run on the CPU lane and cannot use the GPU`))
        lane ??= this.takeGpuLane(controller.signal)
        return lane.turn
      },
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
    job.outcome = execute()
      .finally(() => lane?.release())
      .then(
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

  /**
   * A place on the GPU lane: `turn` resolves once the GPU jobs ahead have released it, `release`
   * hands it to the next (at any time, once). A job cancelled while it waits rejects at once.
   */
  private takeGpuLane(signal: AbortSignal): { turn: Promise<void>; release(): void } {
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    const ahead = this.gpuLane
    this.gpuLane = ahead.then(() => released)
    const cancelled = new Promise<never>((_, reject) => {
      const onAbort = () => reject(new ApiError('cancelled', 'cancelled'))
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
      void ahead.then(() => signal.removeEventListener('abort', onAbort))
    })
    return { turn: Promise.race([ahead, cancelled]), release }
  }

  private finish(job: Job, event: JobEvent): void {
    job.finished = true
    const finished = [...this.jobs].filter(([, j]) => j.finished)
    for (const [id] of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(id)
    this.emit('event', event)
  }
}
