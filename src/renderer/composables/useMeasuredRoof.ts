// The newest measured roof of an adapter in the run history (a Device benchmark), for the workload
// views' roofline charts: their kernels are drawn under it when it was measured on the adapter they
// ran on. Looked up again whenever a Device benchmark finishes, so a roof measured later appears.
import { onBeforeUnmount, shallowRef, watch, type Ref, type ShallowRef } from 'vue'
import type { ParalabApi } from '../../shared/api'
import { rooflineFromBench } from '../../shared/charts/roofline'
import type { RoofData } from '../../shared/charts/spec'
import type { DeviceResult } from '../../shared/workloads/device'
import { useApi } from './api'
import { deviceInfoOnce } from './useDeviceInfo'
import { adapterName } from '../../shared/device'

/** The roof of the newest Device run in the history that measured `adapter`, or null. */
export async function measuredRoof(api: Pick<ParalabApi, 'listRuns' | 'openRun'>, adapter: string): Promise<RoofData | null> {
  const runs = (await api.listRuns()).filter((r) => r.workload === 'device').sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  for (const run of runs) {
    const bench = ((await api.openRun(run.id)).results as DeviceResult | undefined)?.bench
    if (bench && adapterName(bench.adapter) === adapter) return rooflineFromBench(bench)
  }
  return null
}

/**
 * The measured roof for the adapter a run's kernels ran on: `adapter` (the run's envelope names it),
 * or, for a run shown without its envelope, the adapter this backend uses now.
 */
export function useMeasuredRoof(adapter: Ref<string | undefined>): { roof: ShallowRef<RoofData | null>; adapter: ShallowRef<string | undefined> } {
  const api = useApi()
  const roof = shallowRef<RoofData | null>(null)
  const shown = shallowRef<string | undefined>(adapter.value)
  let asked = 0
  async function refresh(): Promise<void> {
    const ask = ++asked
    try {
      const name = adapter.value ?? (await currentAdapter(api))
      const found = name ? await measuredRoof(api, name) : null
      if (ask === asked) {
        shown.value = name
        roof.value = found
      }
    } catch {
      // Without the history (or an adapter) the kernels are drawn alone, as before any measurement.
      if (ask === asked) roof.value = null
    }
  }
  watch(adapter, () => void refresh(), { immediate: true })
  const off = api.onJobEvent((event) => {
    if (event.type === 'done' && event.workload === 'device') void refresh()
  })
  onBeforeUnmount(off)
  return { roof, adapter: shown }
}

async function currentAdapter(api: ParalabApi): Promise<string | undefined> {
  const info = await deviceInfoOnce(api)
  return info.adapter ? adapterName(info.adapter) : undefined
}
