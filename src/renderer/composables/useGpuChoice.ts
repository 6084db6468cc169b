// The GPU among a workload form's backend choices: until the adapter is known it stays offered (the
// backend answers if it is missing); without one it is unticked and disabled with the reason; on a
// software adapter (SwiftShader) it is marked as slow.
import { computed, onMounted, ref } from 'vue'
import { useApi } from './api'
import { deviceInfoOnce } from './useDeviceInfo'
import type { FieldValue } from './useWorkloadForm'

type ChoiceTexts = Record<string, Record<string, string>>

export function useGpuChoice(values: Record<string, FieldValue>, param = 'backends') {
  const api = useApi()
  const missing = ref<string | null>(null)
  const software = ref(false)
  onMounted(async () => {
    try {
      const info = await deviceInfoOnce(api)
      if (!info.available) {
        missing.value = info.reason || 'No WebGPU adapter was found.'
        values[param] = (values[param] as string[]).filter((b) => b !== 'gpu')
      }
      software.value = info.adapter?.isSoftware ?? false
    } catch {
      // the Device view reports why the adapter could not be queried
    }
  })
  /** For ParamFields' `unavailable` and `notes`. */
  const unavailable = computed((): ChoiceTexts => (missing.value ? { [param]: { gpu: `GPU unavailable: ${missing.value}` } } : {}))
  const notes = computed((): ChoiceTexts => (software.value ? { [param]: { gpu: 'software adapter — slow' } } : {}))
  return { unavailable, notes }
}
