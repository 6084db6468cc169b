// Which backend was fastest on this machine for each workload run so far: each workload's newest
// run in the history, its timed runs (as Compare lines them up) on each input, fastest first with
// how many times slower every other one was. A GPU on a software adapter (the CPU emulating it) is
// said to be one, with its ratio to the fastest CPU backend, so nobody takes it for a GPU's speed.
import type { ParalabApi, RunSummary } from '../../../shared/api'
import { isWorkloadId, workload } from '../../../shared/workloads'
import type { ResultEnvelope } from '../../../shared/workloads/envelope'

export interface BackendTime {
  /** `gpu` or `gpu naive` (backend and variant). */
  name: string
  backend: string
  ms: number
  /** How many times the fastest's time. */
  slower: number
}

export interface FastestRow {
  workload: string
  title: string
  run: RunSummary
  /** The input the runs are on ('' where the workload reads none). */
  input: string
  /** What it ran on: "Intel Xeon … (8 cores)". */
  host: string
  fastest: BackendTime
  others: BackendTime[]
  /** The GPU ran on a software adapter: its best time against the fastest CPU backend's. */
  softwareGpu?: { slower: number; than: string }
}

/** One row per input of a run: its backends by median time. */
export function fastestOf(run: RunSummary, envelope: ResultEnvelope): FastestRow[] {
  if (!isWorkloadId(envelope.workload)) return []
  const def = workload(envelope.workload)
  const runs = def.compared(envelope as never)
  const inputs = [...new Set(runs.map((r) => r.input))]
  return inputs.flatMap((input) => {
    // A backend's best variant stands for it (the GPU's kernels are its variants).
    const times = runs
      .filter((r) => r.input === input && Number.isFinite(r.timing.median) && r.timing.median > 0)
      .map((r) => ({ name: r.variant ? `${r.backend} ${r.variant}` : r.backend, backend: r.backend, ms: r.timing.median }))
      .sort((a, b) => a.ms - b.ms)
    const best = times.filter((t, i) => times.findIndex((u) => u.backend === t.backend) === i)
    if (!best.length) return []
    const top = best[0].ms
    const ranked = best.map((t) => ({ ...t, slower: t.ms / top }))
    const gpu = ranked.find((t) => t.backend === 'gpu')
    const cpu = ranked.find((t) => t.backend !== 'gpu')
    const softwareGpu = envelope.device?.software && gpu && cpu && gpu.ms > cpu.ms ? { slower: gpu.ms / cpu.ms, than: cpu.name } : undefined
    const host = envelope.host ? `${envelope.host.cpu} (${envelope.host.cores} cores)` : ''
    return [{ workload: envelope.workload, title: def.title, run, input, host, fastest: ranked[0], others: ranked.slice(1), ...(softwareGpu && { softwareGpu }) }]
  })
}

/** Each workload's newest run, opened: its rows, workloads in the order of their newest runs. */
export async function fastestBackends(api: Pick<ParalabApi, 'listRuns' | 'openRun'>): Promise<FastestRow[]> {
  const newest = new Map<string, RunSummary>()
  for (const run of await api.listRuns()) {
    const seen = newest.get(run.workload)
    if (run.workload !== 'device' && isWorkloadId(run.workload) && (!seen || run.createdAt > seen.createdAt)) newest.set(run.workload, run)
  }
  const rows: FastestRow[] = []
  for (const run of [...newest.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt))) rows.push(...fastestOf(run, await api.openRun(run.id)))
  return rows
}
