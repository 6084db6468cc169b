// One workload's job as a view runs it: start, follow its progress events, cancel, keep the
// result envelope; or show an envelope from elsewhere (a run reopened from the history).
import { computed, getCurrentScope, onScopeDispose, ref, shallowRef } from 'vue'
import type { ParalabApi } from '../../shared/api'
import { ApiError, type ApiErrorShape } from '../../shared/errors'
import type { JobEvent, JobProgress } from '../../shared/jobs'
import type { InputOf, ResultsOf, WorkloadId } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'

/** `view`: the jobs look at a run (a pair, a zoom, a path query), so the history does not list them. */
export function useJob<Id extends WorkloadId>(api: ParalabApi, workload: Id, opts: { view?: boolean } = {}) {
  const jobId = ref<string | null>(null)
  const running = ref(false)
  const cancelling = ref(false)
  const cancelled = ref(false)
  const progress = shallowRef<JobProgress | null>(null)
  const envelope = shallowRef<ResultEnvelope<ResultsOf<Id>> | null>(null)
  const result = computed(() => envelope.value?.results ?? null)
  const error = shallowRef<ApiErrorShape | null>(null)
  /** The envelope shown was reopened from the history rather than made by this view's last job. */
  const reopened = ref(false)

  // A backend may report progress before startJob's answer names the job: hold those events.
  let starting = false
  let early: JobEvent[] = []

  const unsubscribe = api.onJobEvent((event) => {
    if (event.workload !== workload) return
    if (jobId.value === null) {
      if (starting) early.push(event)
    } else if (event.jobId === jobId.value) {
      apply(event)
    }
  })
  if (getCurrentScope()) onScopeDispose(unsubscribe)

  function apply(event: JobEvent): void {
    if (!running.value) return
    if (event.type === 'progress') {
      progress.value = { phase: event.phase, fraction: event.fraction, throughput: event.throughput, ...(event.phaseFraction !== undefined && { phaseFraction: event.phaseFraction }) }
      return
    }
    running.value = false
    cancelling.value = false
    if (event.type === 'done') setEnvelope(event.envelope)
    else if (event.error.code === 'cancelled') {
      cancelled.value = true
      // What a cancelled job had finished, when it kept anything.
      if (event.partial) setEnvelope(event.partial)
    } else error.value = event.error
  }

  async function start(params: InputOf<Id>): Promise<void> {
    if (running.value) return
    jobId.value = null
    progress.value = { phase: 'starting', fraction: 0 }
    envelope.value = null
    error.value = null
    cancelled.value = false
    reopened.value = false
    running.value = true
    starting = true
    early = []
    try {
      const id = await (opts.view ? api.startView(workload, params) : api.startJob(workload, params))
      jobId.value = id
      for (const event of early) if (event.jobId === id) apply(event)
    } catch (e) {
      running.value = false
      error.value = ApiError.from(e).toJSON()
    } finally {
      starting = false
      early = []
    }
  }

  async function cancel(): Promise<void> {
    if (!running.value || jobId.value === null) return
    cancelling.value = true
    try {
      await api.cancelJob(jobId.value)
    } catch (e) {
      cancelling.value = false
      error.value = ApiError.from(e).toJSON()
    }
  }

  function setEnvelope(e: ResultEnvelope, fromHistory = false): void {
    envelope.value = e as ResultEnvelope<ResultsOf<Id>>
    reopened.value = fromHistory
  }

  /** Shows `opened` as if its job had just finished here; a job still running replaces it when it ends. */
  function show(opened: ResultEnvelope): void {
    setEnvelope(opened, true)
    error.value = null
    cancelled.value = false
  }

  return { jobId, running, cancelling, cancelled, progress, envelope, result, error, reopened, start, cancel, show, dispose: unsubscribe }
}

export type Job<Id extends WorkloadId> = ReturnType<typeof useJob<Id>>
