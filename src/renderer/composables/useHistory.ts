// The run history as the dashboard sees it: the backend's list of runs, refreshed as jobs end, the
// way a reopened run reaches its workload's view, and what a comparison of runs shows.
import { inject, onScopeDispose, ref, type InjectionKey, type Ref } from 'vue'
import type { ParalabApi, RunSummary } from '../../shared/api'
import { isWorkloadId, workload, type WorkloadId } from '../../shared/workloads'
import type { ResultEnvelope, Timing } from '../../shared/workloads/envelope'
import type { ErrorLog } from './errors'

export interface RunHistory {
  readonly runs: Ref<RunSummary[]>
  refresh(): Promise<void>
  /** Fetches a run and hands it to its workload's view; its workload, or null when that failed (reported). */
  open(id: string): Promise<WorkloadId | null>
  /** A view's way in: `show` receives every run of `workload` reopened from the history. */
  onOpen(workload: WorkloadId, show: (envelope: ResultEnvelope) => void): () => void
  dispose(): void
}

export const HISTORY_KEY: InjectionKey<RunHistory> = Symbol('paralab run history')

const LIST_FAILED = 'Could not list the earlier runs'
const OPEN_FAILED = 'Could not open the run'

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

export interface Comparison {
  /** Every backend any of the runs timed, in the order they first appear. */
  backends: string[]
  /** Per backend, per run: its timing, if that run timed it. */
  timings: Record<string, (Timing | undefined)[]>
  /** Per backend: the index of the run with the lowest median. */
  fastest: Record<string, number>
  /** The parameters whose values differ between the runs, with each run's value as text. */
  differing: { name: string; label: string; values: string[] }[]
}

/** Runs of one workload side by side: timings per backend and the parameters that differ. */
export function compareRuns(envelopes: ResultEnvelope[]): Comparison {
  const backends = [...new Set(envelopes.flatMap((e) => Object.keys(e.timings)))]
  const timings = Object.fromEntries(backends.map((b) => [b, envelopes.map((e) => e.timings[b])]))
  const fastest = Object.fromEntries(
    backends.map((b) => {
      const medians = timings[b].map((t) => t?.median ?? Infinity)
      return [b, medians.indexOf(Math.min(...medians))]
    }),
  )
  const params = envelopes.map((e) => (e.params ?? {}) as Record<string, unknown>)
  const names = [...new Set(params.flatMap((p) => Object.keys(p)))]
  const specs: Record<string, { label?: string }> = isWorkloadId(envelopes[0]?.workload) ? workload(envelopes[0].workload).params : {}
  const differing = names
    .map((name) => ({ name, label: specs[name]?.label ?? name, values: params.map((p) => paramText(p[name])) }))
    .filter((d) => new Set(d.values).size > 1)
  return { backends, timings, fastest, differing }
}

function paramText(v: unknown): string {
  if (v === undefined || v === null) return '—'
  if (Array.isArray(v)) return v.map(paramText).join(', ')
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/** When a run started: the time alone for today's runs, else the date and time. */
export function runTime(iso: string, now = new Date()): string {
  const d = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, '0')
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  return d.toDateString() === now.toDateString() ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`
}
