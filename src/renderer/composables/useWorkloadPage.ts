// One workload view's wiring, the same for every workload: the form made from its schema, the GPU
// among its backends, its job, the job's errors in the log, "Try the example" and runs reopened from
// the history. A view adds only what is its own (its results, a second job of its own).
import { computed, ref, shallowRef, watch } from 'vue'
import type { DataFile } from '../../shared/api'
import { workload, type InputOf, type WorkloadId } from '../../shared/workloads'
import type { ParamSchema } from '../../shared/workloads/schema'
import { useApi } from './api'
import { reportJobErrors, useErrorLog } from './errors'
import { useExample } from './useExample'
import { useGpuChoice } from './useGpuChoice'
import { useReopenedRuns } from './useHistory'
import { useJob } from './useJob'
import { useWorkloadForm, type FieldValue } from './useWorkloadForm'
import { useClusterRun } from '../cluster/useClusterRun'
import { inFormWords } from '../form-words'

export interface PageOptions {
  /** What Run sends, made from the form's parameters (e.g. leaving out what another box asks for); default, them as they are. */
  request?: (params: Record<string, unknown>) => Record<string, unknown>
}

export function useWorkloadPage<Id extends WorkloadId>(id: Id, opts: PageOptions = {}) {
  const definition = workload(id)
  const api = useApi()
  const errors = useErrorLog()
  const form = useWorkloadForm(definition)
  const { unavailable, notes } = useGpuChoice(form.values)
  const job = useJob(api, id)
  // The backend's words name command-line flags; here the user sees fields.
  const jobError = computed(() => job.error.value && { ...job.error.value, message: inFormWords(job.error.value.message, definition) })
  reportJobErrors(errors, jobError, `${definition.title} failed`)

  /** The input files parameter: one per workload that reads files. */
  const fileParam = Object.entries(definition.params as ParamSchema).find(([, spec]) => spec.type === 'files')?.[0]
  const files = computed({
    get: () => (fileParam ? (form.values[fileParam] as string[]) : []),
    set: (paths: string[]) => {
      if (fileParam) form.values[fileParam] = paths
    },
  })

  // A reopened run comes back with the parameters that made it, files included.
  useReopenedRuns(id, (envelope) => {
    job.show(envelope)
    form.set((envelope.params ?? {}) as Record<string, unknown>)
  })

  const start = (params: Record<string, unknown>) => job.start(params as InputOf<Id>)

  // "Run on the cluster": Run submits to Slurm instead; the merged results show here when the run ends.
  const cluster = useClusterRun(api, id, (envelope) => job.show(envelope))
  reportJobErrors(errors, cluster.error, `Submitting ${definition.title} to the cluster failed`)
  /** Why the inputs cannot be read yet, from a box of the view's own (a file's dataset unchosen), or null. */
  const inputProblem = ref<string | null>(null)
  /** Why Run cannot run (or submit), or null. */
  const problem = computed(() => form.problem.value ?? inputProblem.value ?? cluster.problem.value)

  function run(): void {
    if (problem.value) return
    const params = opts.request ? opts.request(form.params.value) : form.params.value
    if (cluster.available.value && cluster.enabled.value) void cluster.submit(params as InputOf<Id>)
    else void start(params)
  }

  const example = useExample(id)
  /** The example's input, for the picker to list: offered, never ticked. */
  const exampleFiles = shallowRef<DataFile[]>()
  /** The user's fields while the example's run shows its own; null when no example runs. */
  const userFields = shallowRef<Record<string, FieldValue> | null>(null)
  /** The example's run is the one running: its settings are in the fields until it ends. */
  const exampleRunning = ref(false)
  function restoreUserFields(): void {
    const saved = userFields.value
    if (!saved) return
    for (const [n, v] of Object.entries(saved)) form.values[n] = Array.isArray(v) ? [...v] : v
    userFields.value = null
    exampleRunning.value = false
  }
  // The example's settings end with the example: the next run is the user's, as the user set it.
  watch(
    () => job.running.value,
    (running) => {
      if (!running) restoreUserFields()
    },
  )
  /**
   * Runs the example with its own files and parameters. The fields show them while it runs (they
   * are locked then) and go back to the user's when it ends; the files ticked stay the user's: the
   * example's files are its run's only.
   */
  async function tryExample(): Promise<void> {
    const setup = await example.load()
    if (!setup || job.running.value) return
    const saved = Object.fromEntries(Object.entries(form.values).map(([n, v]) => [n, Array.isArray(v) ? [...v] : v]))
    form.set(setup.params)
    const params = { ...form.params.value, ...setup.params }
    const problem = form.problem.value
    // The example's files are listed, never ticked.
    if (fileParam) form.values[fileParam] = saved[fileParam]
    exampleFiles.value = setup.files
    if (problem) {
      for (const [n, v] of Object.entries(saved)) form.values[n] = v
      return
    }
    userFields.value = saved
    exampleRunning.value = true
    void start(params)
  }

  return { id, definition, form, files, job, example, exampleFiles, exampleRunning, unavailable, notes, cluster, inputProblem, problem, run, tryExample }
}

export type WorkloadPageState<Id extends WorkloadId = WorkloadId> = ReturnType<typeof useWorkloadPage<Id>>
