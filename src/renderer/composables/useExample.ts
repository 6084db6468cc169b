// "Try the example": asks the backend for a workload's example (making its input on first use),
// for the view to fill its form with and run.
import { ref } from 'vue'
import type { ExampleSetup } from '../../shared/api'
import type { WorkloadId } from '../../shared/workloads'
import { useApi } from './api'
import { useErrorLog } from './errors'

export function useExample(workload: WorkloadId) {
  const api = useApi()
  const errors = useErrorLog()
  const loading = ref(false)
  /** The example's setup, or null when it could not be made (the error is reported). */
  async function load(): Promise<ExampleSetup | null> {
    loading.value = true
    try {
      return await api.example(workload)
    } catch (e) {
      errors.report(e, 'Could not prepare the example')
      return null
    } finally {
      loading.value = false
    }
  }
  return { loading, load }
}
