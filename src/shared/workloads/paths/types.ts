import type { ApiErrorShape } from '../../errors'
// All-pairs shortest paths: blocked Floyd–Warshall on CPU and GPU backends, as the course study ran it.
import type { GpuPlacement } from '../../gpu-placement'

/** Unreachable, as the course's expected outputs write it: 2^30 − 1 (two of them still add up inside int32). */
export const INF = 1073741823

export const PATHS_BACKENDS = ['serial', 'blocked', 'simd', 'workers', 'workers-simd', 'gpu'] as const
export type PathsBackend = (typeof PATHS_BACKENDS)[number]

/** The study's optimization steps, in its order. */
export const GPU_VARIANTS = ['baseline', 'coalesced', 'unrolled', 'shared', 'min', 'b64', 'tuned'] as const
export type GpuVariant = (typeof GPU_VARIANTS)[number]

/** Blocking factors B; several make a sweep. */
export const BLOCK_SIZES = ['8', '16', '32', '64', '128'] as const

export const OUTPUT_FORMATS = ['bin', 'npy', 'csv', 'mtx'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/**
 * How distances were computed: `int32` exactly (integer weights), or for real weights `f64` (the
 * CPU: Floyd–Warshall in SciPy's order, bit for bit its result) or `f32` (the GPU, within the
 * bound its run states).
 */
export type Arithmetic = 'int32' | 'f64' | 'f32'
export type RealArithmetic = Exclude<Arithmetic, 'int32'>

/** A graph file's format, as src/shared/formats.ts names it. */
export type GraphFormat = 'course' | 'dimacs' | 'csv-edges' | 'mtx'

/** How runs saved before the formats had one table named a CSV edge list; still read from the history. */
export type SavedGraphFormat = GraphFormat | 'csv'

export const GRAPH_FORMAT_NAMES: Record<SavedGraphFormat, string> = {
  course: 'course binary format',
  dimacs: 'DIMACS',
  'csv-edges': 'CSV edge list',
  csv: 'CSV edge list',
  mtx: 'Matrix Market',
}

/** The format id of a graph result, an older run's included. */
export const graphFormatId = (format: SavedGraphFormat): GraphFormat => (format === 'csv' ? 'csv-edges' : format)

/** One backend (or GPU variant, at one blocking factor) run `repeat` times. */
export interface PathsRun extends Partial<GpuPlacement> {
  /** How timings and tables name it, e.g. `serial`, `blocked B=64`, `gpu shared B=32`. */
  name: string
  backend: PathsBackend
  variant?: GpuVariant
  /** Blocking factor, for the blocked backends and variants. */
  block?: number
  /** Worker threads, for workers*. */
  threads?: number
  /** Median computation time over the repeats (for the GPU: data resident, dispatches only). */
  compute_ms: number
  /** Fastest and slowest of the repeats. */
  compute_range_ms: [number, number]
  /** GPU: host → device copy of the matrix. */
  upload_ms?: number
  /** GPU: device → host copy of the matrix. */
  readback_ms?: number
  /** GPU: milliseconds the kernels took to compile, before the timed runs. */
  compile_ms?: number
  /** V³ relaxations per second of compute time. */
  relaxations_per_s: number
  /** GPU: modelled global-memory traffic of the kernels per second of compute time (10^9 bytes). */
  bandwidth_GB_per_s?: number
  /** GPU on several devices: how many ran it; where each was to compute and was seen computing (GpuPlacement). */
  gpus?: number
  /** Why the parts share one device though several were asked for. */
  gpus_note?: string
  /**
   * Several devices: the host's time exchanging pivot block rows, in the median computation (waiting
   * for the next pivot row on its owner, then copying it to the others; overlapped with phase 3), and per round.
   */
  exchange_ms?: number
  exchange_round_ms?: number
  /**
   * Distances (and successors with `paths`) identical to the first run's, byte for byte; on real
   * weights between f32 and f64 runs (or two f32 runs), within the f32 runs' stated bound.
   */
  matches: boolean
  /** Real weights: the arithmetic of this run (f64 on the CPU, f32 on the GPU). */
  arithmetic?: RealArithmetic
  /**
   * f32: the bound on each distance's error that `matches` checked, as the relative error γ of the
   * reweighted distance d′ (|d − d_f64| ≤ γ·d′ plus f64 rounding; docs/workloads.md).
   */
  relative_error_bound?: number
}

/** Counts of finite off-diagonal distances in equal-width bins starting at `start`. */
export interface DistanceHistogram {
  start: number
  width: number
  counts: number[]
}

/** How a heatmap cell stands for a block of pairs: their least, mean or greatest finite distance. */
export const DISTANCE_AGGREGATES = ['min', 'mean', 'max'] as const
export type DistanceAggregate = (typeof DISTANCE_AGGREGATES)[number]

/** The distance matrix reduced to at most `size` × `size` cells, each the minimum of its block (null: all unreachable). */
export interface DistanceHeatmap {
  size: number
  /** Vertices per cell side. */
  cell: number
  min: (number | null)[]
  /** With blocks: each block's greatest and mean finite distance (absent when a cell is one pair). */
  max?: (number | null)[]
  mean?: (number | null)[]
}

/**
 * A block range of one graph's distances at full resolution (`zoom`): rows and columns are vertex
 * positions (from 0, in the file's numbering); beyond 256 a side, blocks of `block` × `block`
 * vertices with their least, greatest and mean finite distance (null: no path in the cell).
 */
export interface DistanceZoom {
  /** The graph, as given. */
  path: string
  vertices: number
  rows: [number, number]
  cols: [number, number]
  block: number
  min: (number | null)[]
  max?: (number | null)[]
  mean?: (number | null)[]
  /** Read from the matrix the run kept on disk, rather than computed again. */
  kept: boolean
}

/** A shortest path between two vertices, by name (null when there is none). */
export interface PathQuery {
  from: string
  to: string
  path: string[] | null
  length: number | null
}

export interface PathsGraphResult {
  path: string
  /** Runs saved before the format ids say 'csv' for 'csv-edges' (graphFormatId reads both). */
  format: SavedGraphFormat
  bytes: number
  vertices: number
  /** Edges as read, duplicates and self-loops included. */
  edges: number
  /** Edges repeating a (source, target) pair: the smallest weight is kept. */
  duplicates: number
  /** Edges from a vertex to itself: ignored (a negative one is a negative cycle). */
  selfLoops: number
  /** Negative weights were present (text formats): distances were computed on reweighted edges (Johnson) after a negative-cycle check. */
  negativeWeights: boolean
  /**
   * How the distances (those summarized, written and kept: the first run's) were computed: int32
   * (integer weights, exact), or on real weights f64 (the CPU) or f32 (the GPU). Absent in runs
   * saved before real weights were read: int32.
   */
  arithmetic?: Arithmetic
  read_ms: number
  /** Pairs (i, j), i ≠ j, with a path. */
  reachablePairs: number
  /** Sum of every finite distance, in decimal (exact beyond 2^53). */
  checksum: string
  /** Extremes of the finite off-diagonal distances (null: none). */
  minDistance: number | null
  maxDistance: number | null
  runs: PathsRun[]
  histogram: DistanceHistogram
  heatmap: DistanceHeatmap
  /** Successors were computed (`paths`). */
  successors: boolean
  query?: PathQuery
  /**
   * A run with checkpoints (--checkpoint-every): how often (rounds), where, the round it resumed
   * from (0: from the graph), the last checkpoint's round (null: none), and the checkpoints this
   * run wrote, their time (apart from compute_ms) and bytes.
   */
  checkpoints?: { every: number; folder: string; resumed_from: number; last: number | null; written: number; write_ms: number; bytes: number }
  /** The matrices written with `output`. */
  output?: { path: string; format: OutputFormat; bytes: number; next?: string; write_ms: number }
}

export interface PathsResult {
  graphs: PathsGraphResult[]
  /** Backends or variants not run, with the reason. */
  skipped: { backend: string; reason: string }[]
  /** Graphs of a cluster run whose task failed or was cancelled, with its error. */
  failed?: { path: string; error: ApiErrorShape }[]
  /** Present when a block range was asked for (`zoom`): that range at full resolution. */
  zoom?: DistanceZoom
}
