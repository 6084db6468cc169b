// The run history as the dashboard sees it: the backend's list of runs, refreshed as jobs end, the
// way a reopened run reaches its workload's view, and how a run's time is shown.
import { inject, onScopeDispose, ref, type InjectionKey, type Ref } from 'vue'
import type { ParalabApi, RunSummary } from '../../shared/api'
import { isWorkloadId, type WorkloadId } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import type { ErrorLog } from './errors'

export interface RunHistory {
  readonly runs: Ref<RunSummary[]>
  refresh(): Promise<void>
  /** Names a run ('' removes its name), then lists the runs again. */
  label(id: string, label: string): Promise<void>
  /** Fetches a run and hands it to its workload's view; its workload, or null when that failed (reported). */
  open(id: string): Promise<WorkloadId | null>
  /** A view's way in: `show` receives every run of `workload` reopened from the history. */
  onOpen(workload: WorkloadId, show: (envelope: ResultEnvelope) => void): () => void
  dispose(): void
}

export const HISTORY_KEY: InjectionKey<RunHistory> = Symbol('paralab run history')

const LIST_FAILED = 'Could not list the earlier runs'
const OPEN_FAILED = 'Could not open the run'
const LABEL_FAILED = 'Could not label the run'

export function createHistory(api: ParalabApi, errors: ErrorLog): RunHistory {
  const runs = ref<RunSummary[]>([])
  const views = new Map<WorkloadId, (envelope: ResultEnvelope) => void>()
  async function refresh(): Promise<void> {
    try {
      runs.value = await api.listRuns()
      errors.clear(LIST_FAILED)
    } catch (e) {
      errors.report(e, LIST_FAILED)
    }
  }
  // The backend keeps a run before announcing its end, so the list fetched then includes it.
  const off = api.onJobEvent((e) => {
    if (e.type === 'done' || (e.type === 'failed' && e.partial)) void refresh()
  })
  return {
    runs,
    refresh,
    async label(id, label) {
      try {
        await api.labelRun(id, label)
        errors.clear(LABEL_FAILED)
      } catch (e) {
        errors.report(e, LABEL_FAILED)
      }
      await refresh()
    },
    async open(id) {
      try {
        const envelope = await api.openRun(id)
        const show = isWorkloadId(envelope.workload) ? views.get(envelope.workload) : undefined
        if (!show) throw new Error(`this dashboard has no view for ${envelope.workload} runs`)
        show(envelope)
        errors.clear(OPEN_FAILED)
        return envelope.workload as WorkloadId
      } catch (e) {
        errors.report(e, OPEN_FAILED)
        return null
      }
    },
    onOpen(id, show) {
      views.set(id, show)
      return () => views.delete(id)
    },
    dispose: off,
  }
}

/** In a workload view: `show` receives the runs of `workload` reopened from the history (where the dashboard keeps one). */
export function useReopenedRuns(id: WorkloadId, show: (envelope: ResultEnvelope) => void): void {
  const history = inject(HISTORY_KEY, null)
  if (history) onScopeDispose(history.onOpen(id, show))
}

/** When a run started: the time alone for today's runs, else the date and time. */
export function runTime(iso: string, now = new Date()): string {
  const d = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, '0')
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  return d.toDateString() === now.toDateString() ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`
}
