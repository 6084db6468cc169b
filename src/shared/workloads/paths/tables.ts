// Shortest-paths results as tables: one row per graph, one per timed run, and the queried paths.
import type { ResultTable } from '../definition'
import type { PathsResult } from './types'

export function pathsTables(result: PathsResult): ResultTable[] {
  const graphs: ResultTable = {
    name: 'graphs',
    columns: ['file', 'format', 'bytes', 'vertices', 'edges', 'duplicates', 'self_loops', 'negative_weights', 'reachable_pairs', 'checksum', 'min_distance', 'max_distance', 'read_ms', 'write_ms', 'output'],
    rows: result.graphs.map((g) => [
      g.path, g.format, g.bytes, g.vertices, g.edges, g.duplicates, g.selfLoops, g.negativeWeights, g.reachablePairs, g.checksum,
      g.minDistance, g.maxDistance, g.read_ms, g.output?.write_ms ?? null, g.output?.path ?? null,
    ]),
  }
  const runs: ResultTable = {
    name: 'runs',
    columns: ['file', 'run', 'backend', 'variant', 'block', 'threads', 'compute_ms', 'compute_min_ms', 'compute_max_ms', 'upload_ms', 'readback_ms', 'relaxations_per_s', 'bandwidth_GB_per_s', 'matches'],
    rows: result.graphs.flatMap((g) =>
      g.runs.map((r) => [
        g.path, r.name, r.backend, r.variant ?? null, r.block ?? null, r.threads ?? null, r.compute_ms, r.compute_range_ms[0], r.compute_range_ms[1],
        r.upload_ms ?? null, r.readback_ms ?? null, r.relaxations_per_s, r.bandwidth_GB_per_s ?? null, r.matches,
      ]),
    ),
  }
  const queries: ResultTable = {
    name: 'query',
    columns: ['file', 'from', 'to', 'length', 'hops', 'path'],
    rows: result.graphs.flatMap((g) => (g.query ? [[g.path, g.query.from, g.query.to, g.query.length, g.query.path ? g.query.path.length - 1 : null, g.query.path?.join(' ') ?? null]] : [])),
  }
  return [runs, graphs, ...(queries.rows.length ? [queries] : [])]
}
