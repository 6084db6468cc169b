// A workload form's "Run on the cluster": the Slurm fields as typed, the request they make (checked
// by the same code as the CLI's flags and the backend), submitting, and the run's merged results
// shown in the view when its merge ends (the backend announces them as a `done` job event).
import { computed, getCurrentScope, onScopeDispose, reactive, ref, shallowRef } from 'vue'
import type { ParalabApi } from '../../shared/api'
import { CLUSTER_FIELDS, checkClusterRequest, clusterEventId, type ClusterField, type ClusterRequest, type ClusterSubmission } from '../../shared/cluster'
import { ApiError, type ApiErrorShape } from '../../shared/errors'
import type { InputOf, WorkloadId } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { messageOf } from '../composables/errors'
import { clusterAvailable } from './cluster-info'

/** A field's value as its input holds it: text, or a number from a number input. */
export type ClusterFieldValue = string | number

/** The request the fields make, checked (empty fields left out), or the reason it cannot be made, with fields named by their labels. */
export function clusterRequestOf(fields: Record<ClusterField, ClusterFieldValue>): { request: ClusterRequest; problem: null } | { request: null; problem: string } {
  const given: Partial<Record<ClusterField, ClusterFieldValue>> = {}
  for (const k of Object.keys(CLUSTER_FIELDS) as ClusterField[]) {
    const v = fields[k]
    // As a shell would pass a flag's word: without the spaces around it.
    if (typeof v === 'number' || v.trim() !== '') given[k] = typeof v === 'number' ? v : v.trim()
  }
  try {
    return { request: checkClusterRequest(given), problem: null }
  } catch (e) {
    let message = messageOf(e)
    for (const f of Object.values(CLUSTER_FIELDS)) message = message.replace(`--${f.flag} `, `${f.label} `)
    return { request: null, problem: message }
  }
}

export function useClusterRun<Id extends WorkloadId>(api: ParalabApi, workload: Id, show: (envelope: ResultEnvelope) => void) {
  const available = clusterAvailable(api)
  const enabled = ref(false)
  const fields = reactive(Object.fromEntries(Object.keys(CLUSTER_FIELDS).map((k) => [k, ''])) as Record<ClusterField, ClusterFieldValue>)
  const checked = computed(() => clusterRequestOf(fields))
  /** Why the run cannot be submitted, or null (also null when the run stays here). */
  const problem = computed(() => (enabled.value ? checked.value.problem : null))
  const submitting = ref(false)
  const submitted = shallowRef<ClusterSubmission | null>(null)
  const error = shallowRef<ApiErrorShape | null>(null)

  const off = api.onJobEvent((event) => {
    if (event.type === 'done' && event.workload === workload && submitted.value && event.jobId === clusterEventId(submitted.value.jobId)) show(event.envelope)
  })
  if (getCurrentScope()) onScopeDispose(off)

  async function submit(params: InputOf<Id>): Promise<void> {
    const request = checked.value.request
    if (submitting.value || !request) return
    submitting.value = true
    error.value = null
    try {
      submitted.value = await api.submitClusterJob(workload, params, request)
    } catch (e) {
      error.value = ApiError.from(e).toJSON()
    } finally {
      submitting.value = false
    }
  }

  return { available, enabled, fields, problem, submitting, submitted, error, submit }
}

/** What the form's cluster fields show and change (submitting is the page's Run). */
export type ClusterRunState = Omit<ReturnType<typeof useClusterRun>, 'submit'>
