// A shortest-paths run over several graphs, as a cluster job array (one graph a task), made whole
// again: the graphs in input order, the timings named by graph as the local run names them. A
// graph whose task failed or was cancelled is in `failed`, a row of the graphs table marked as such.
import { basename } from 'node:path'
import type { Timing } from '../../../shared/workloads/envelope'
import type { PathsResult } from '../../../shared/workloads/paths/types'
import type { TaskPart } from '../../engine'
import { pushAll } from '../../../shared/extent'

export function mergePaths(parts: TaskPart<PathsResult>[]): { results: PathsResult; timings: Record<string, Timing> } {
  const results: PathsResult = { graphs: [], skipped: [] }
  const timings: Record<string, Timing> = {}
  const done = parts.filter((p) => p.outcome)
  const failed = parts.filter((p) => !p.outcome).map((p) => ({ path: p.file, error: p.error ?? { code: 'internal', message: `${p.file}: the task left no outcome` } }))
  if (failed.length) results.failed = failed
  for (const part of done) {
    const r = part.outcome!.results
    pushAll(results.graphs, r.graphs)
    for (const s of r.skipped) if (!results.skipped.some((k) => k.backend === s.backend && k.reason === s.reason)) results.skipped.push(s)
    for (const [key, t] of Object.entries(part.outcome!.timings)) timings[parts.length === 1 ? key : `${basename(part.file)}: ${key}`] = t
  }
  return { results, timings }
}
