// A statistics run over several files, as a cluster job array (one file a task), made whole again:
// the files and failures in input order, and the timings named by file as the local run names them.
import type { Timing } from '../../../shared/workloads/envelope'
import type { StatsResult } from '../../../shared/workloads/stats/types'
import type { TaskPart } from '../../engine'
import { pushAll } from '../../../shared/extent'

export function mergeStats(parts: TaskPart<StatsResult>[]): { results: StatsResult; timings: Record<string, Timing> } {
  const results: StatsResult = { files: [], failed: [], skipped: [] }
  const timings: Record<string, Timing> = {}
  for (const part of parts) {
    if (!part.outcome) {
      results.failed.push({ path: part.file, error: part.error ?? { code: 'internal', message: `${part.file}: the task left no outcome` } })
      continue
    }
    const r = part.outcome.results
    pushAll(results.files, r.files)
    pushAll(results.failed, r.failed)
    for (const s of r.skipped) if (!results.skipped.some((k) => k.backend === s.backend)) results.skipped.push(s)
    for (const [key, t] of Object.entries(part.outcome.timings)) timings[parts.length === 1 ? key : `${part.file}: ${key}`] = t
  }
  return { results, timings }
}
