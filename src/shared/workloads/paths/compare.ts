// A shortest-paths job for Compare: each graph's runs (backend, GPU variant and blocking factor),
// their work V³ relaxations, their checks the distances' checksum and agreement with the first run.
import type { ComparableRun, RunCost } from '../comparable'
import type { ResultEnvelope } from '../envelope'
import type { PathsResult } from './types'

/**
 * Floyd–Warshall on V vertices: V³ relaxations of an add and a min each (integer operations, counted
 * as a roofline counts FLOPs); the int32 distance matrix read and written once.
 */
export function pathsCost(vertices: number): RunCost {
  return { flop: 2 * vertices ** 3, bytes: 2 * vertices * vertices * 4 }
}

export function pathsCompared(envelope: ResultEnvelope<PathsResult>): ComparableRun[] {
  const repeat = (envelope.params as { repeat?: number } | undefined)?.repeat ?? 1
  return envelope.results.graphs.flatMap((graph) =>
    graph.runs.map((run) => ({
      input: graph.path,
      backend: run.backend,
      // The run's name less its backend: `shared B=32`, `B=64`.
      variant: run.name.startsWith(run.backend) ? run.name.slice(run.backend.length).trim() : run.name,
      timing: { median: run.compute_ms, min: run.compute_range_ms[0], max: run.compute_range_ms[1], runs: repeat },
      work: { count: graph.vertices ** 3, unit: 'relaxation' },
      cost: pathsCost(graph.vertices),
      ...(run.compile_ms !== undefined && { compile_ms: run.compile_ms }),
      checks: [
        { name: 'checksum', value: graph.checksum },
        { name: 'reachable pairs', value: String(graph.reachablePairs) },
        { name: 'same as first run', value: run.matches ? 'yes' : 'no' },
      ],
    })),
  )
}
