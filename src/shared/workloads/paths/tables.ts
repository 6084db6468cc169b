// Shortest-paths results as tables: one row per graph, one per timed run, and the queried paths.
import type { ResultTable } from '../definition'
import { graphFormatId, INF } from './types'
import type { PathsResult } from './types'
import { failureStatus } from '../partial'

export function pathsTables(result: PathsResult): ResultTable[] {
  const graphs: ResultTable = {
    name: 'graphs',
    columns: ['file', 'status', 'format', 'bytes', 'vertices', 'edges', 'duplicates', 'self_loops', 'negative_weights', 'arithmetic', 'reachable_pairs', 'checksum', 'min_distance', 'max_distance', 'read_ms', 'write_ms', 'output', 'error'],
    rows: [
      ...result.graphs.map((g) => [
        g.path, 'ok', graphFormatId(g.format), g.bytes, g.vertices, g.edges, g.duplicates, g.selfLoops, g.negativeWeights, g.arithmetic ?? 'int32', g.reachablePairs, g.checksum,
        g.minDistance, g.maxDistance, g.read_ms, g.output?.write_ms ?? null, g.output?.path ?? null, null,
      ]),
      // A graph whose cluster task did not complete is a row too, marked as such.
      ...(result.failed ?? []).map((f) => [f.path, failureStatus(f.error), ...Array<null>(15).fill(null), f.error.message]),
    ],
  }
  const runs: ResultTable = {
    name: 'runs',
    columns: ['file', 'run', 'backend', 'variant', 'block', 'threads', 'compute_ms', 'compute_min_ms', 'compute_max_ms', 'upload_ms', 'readback_ms', 'compile_ms', 'relaxations_per_s', 'bandwidth_GB_per_s', 'gpus', 'exchange_ms', 'exchange_round_ms', 'matches', 'arithmetic', 'relative_error_bound'],
    rows: result.graphs.flatMap((g) =>
      g.runs.map((r) => [
        g.path, r.name, r.backend, r.variant ?? null, r.block ?? null, r.threads ?? null, r.compute_ms, r.compute_range_ms[0], r.compute_range_ms[1],
        r.upload_ms ?? null, r.readback_ms ?? null, r.compile_ms ?? null, r.relaxations_per_s, r.bandwidth_GB_per_s ?? null, r.gpus ?? null, r.exchange_ms ?? null, r.exchange_round_ms ?? null, r.matches, r.arithmetic ?? g.arithmetic ?? 'int32', r.relative_error_bound ?? null,
      ]),
    ),
  }
  const queries: ResultTable = {
    name: 'query',
    columns: ['file', 'from', 'to', 'length', 'hops', 'path'],
    rows: result.graphs.flatMap((g) => (g.query ? [[g.path, g.query.from, g.query.to, g.query.length, g.query.path ? g.query.path.length - 1 : null, g.query.path?.join(' ') ?? null]] : [])),
  }
  graphs.note = `One row per graph (status ok, or failed or cancelled with the error that stopped its task): its vertices and edges (duplicates, self-loops and negative weights counted as read); reachable_pairs: ordered pairs i ≠ j with a path; checksum: the sum of all finite distances; min and max over those pairs (empty: no pair is reachable); arithmetic: int32 (integer weights, exact), or for real weights f64 (the CPU, SciPy\'s floyd_warshall bit for bit) or f32 (the GPU) of the distances summarized and written; unreachable pairs are ${INF} in a bin output file, inf in npy, empty in csv.`
  runs.note = 'Each run of blocked Floyd–Warshall: compute time in ms (median, min and max of the repeats), GPU upload and readback apart; on several GPUs (gpus), exchange_ms: time the host spends passing pivot rows between them within the compute time (overlapped with phase 3), and per round; relaxations_per_s = V³ / compute time; matches: the distances equal the reference run\'s (real weights: an f32 run within its relative_error_bound γ of the reweighted distance); arithmetic: the run\'s (int32, f64 or f32).'
  queries.note = 'The shortest path asked for: its length (empty: no path), its hops and its vertices in order.'
  return [runs, graphs, ...(queries.rows.length ? [queries] : [])]
}
