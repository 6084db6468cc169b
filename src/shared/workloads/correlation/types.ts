// Homogeneity of measurement clusters: the Pearson matrix of M series of length N, on several
// backends, and the series whose low correlation with the others marks them as anomalies.

export const CORRELATION_BACKENDS = ['serial', 'simd', 'workers', 'workers-simd', 'gpu'] as const
export type CorrelationBackend = (typeof CORRELATION_BACKENDS)[number]
export type CpuCorrelationBackend = Exclude<CorrelationBackend, 'gpu'>

export const LAYOUTS = ['columns', 'rows'] as const
export type Layout = (typeof LAYOUTS)[number]

export const PRECISIONS = ['f64', 'f32'] as const
export type Precision = (typeof PRECISIONS)[number]

/** What a run computed in: the GPU has no f64, so its f64 mode is centred f32 with compensated sums. */
export type Arithmetic = 'f64' | 'f32' | 'f32-compensated'

export const MEANS_VARIANTS = ['naive', 'shared', 'unrolled', 'subgroup'] as const
export type MeansVariant = (typeof MEANS_VARIANTS)[number]
export const CROSS_VARIANTS = ['naive', 'tiled', 'register'] as const
export type CrossVariant = (typeof CROSS_VARIANTS)[number]
/** The GPU kernels to run and time, by stage: `means-<variant>` and `cross-<variant>`. */
export const GPU_VARIANTS = [
  'means-naive',
  'means-shared',
  'means-unrolled',
  'means-subgroup',
  'cross-naive',
  'cross-tiled',
  'cross-register',
] as const
export type GpuVariant = (typeof GPU_VARIANTS)[number]

/** Steps 2–5 of the study, each timed. */
export const STAGES = ['means', 'squares', 'cross', 'coefficients'] as const
export type Stage = (typeof STAGES)[number]

export const STAGE_SUMMARIES: Record<Stage, string> = {
  means: 'the mean of each series',
  squares: 'the centred series and √Σ(x − x̄)² of each',
  cross: 'Σ(x − x̄)(y − ȳ) for every pair (upper triangle)',
  coefficients: 'r = Σ(x − x̄)(y − ȳ) / (√Σ(x − x̄)² · √Σ(y − ȳ)²), clipped to [−1, 1]',
}

export const HEATMAP_ORDERS = ['given', 'ranking'] as const
export type HeatmapOrder = (typeof HEATMAP_ORDERS)[number]

export const INPUT_FORMATS = ['csv', 'npy', 'parquet', 'arrow', 'hdf5', 'netcdf'] as const
export type InputFormat = (typeof INPUT_FORMATS)[number]

/** Median, min and max milliseconds of the repeats. */
export interface Spread {
  median: number
  min: number
  max: number
}

/** One GPU kernel variant of a stage, timed, with its work for the roofline and its accuracy. */
export interface VariantRun {
  stage: 'means' | 'cross'
  variant: MeansVariant | CrossVariant
  ms: Spread
  /** Floating-point operations of one run of the stage. */
  flop: number
  /** Bytes the stage reads and writes in GPU memory (compulsory traffic). */
  bytes: number
  /** means: largest relative error of a mean; cross: max |Δr| of the matrix it led to, against the f64 reference. */
  deviation: number
}

export interface BackendRun {
  backend: CorrelationBackend
  arithmetic: Arithmetic
  /** Threads of the CPU backends. */
  threads?: number
  /** Per stage, of the repeats (GPU: the fastest variant's). */
  stages: Record<Stage, Spread>
  /** Steps 2–5 together, of the repeats. */
  total: Spread
  /** GPU: host → device copy of the series, before the stages. */
  upload_ms?: number
  /** GPU: device → host copy of the coefficients, after the stages. */
  download_ms?: number
  /** GPU: milliseconds the kernels took to compile, before the timed runs. */
  compile_ms?: number
  /** max |Δr| against the f64 reference (0 for the reference itself; NaN cells must match). */
  max_abs_dr: number
  /** GPU: each chosen kernel variant. */
  variants?: VariantRun[]
}

/** One series of the anomaly ranking: its correlation with all the others. */
export interface RankEntry {
  name: string
  /** Position in the input, from 0. */
  index: number
  /** Mean of r with every other series (null for a constant series). */
  meanR: number | null
  medianR: number | null
  /** Robust z-score of meanR: 0.6745 (meanR − median) / MAD over all series. */
  z: number | null
  flagged: boolean
}

/** How a heatmap cell stands for a block of pairs: the mean of their r, the least, or the greatest. */
export const HEATMAP_AGGREGATES = ['mean', 'min', 'max'] as const
export type HeatmapAggregate = (typeof HEATMAP_AGGREGATES)[number]

/** The matrix as the heatmap shows it: aggregated over blocks of series beyond the chart's size. */
export interface HeatmapData {
  /** Cells per side. */
  size: number
  /** Series per cell and side (1: the matrix itself). */
  block: number
  order: HeatmapOrder
  /** size × size, row-major, each block's mean r; null where no finite r falls in the cell. */
  values: (number | null)[]
  /** With blocks: each block's least and greatest r (absent when every cell is one pair). */
  min?: (number | null)[]
  max?: (number | null)[]
  /** What each position stands for: a series name, or the first and last of a block. */
  labels: string[]
  /** For each position, the series (input indices) of the block, from the first. */
  series: number[][]
}

/**
 * A block range of the matrix (series positions from 0, in the input's order, first and last
 * included): each cell one pair's r, or beyond the chart's cells a block's mean, least and greatest.
 */
export interface HeatmapZoom {
  rows: [number, number]
  cols: [number, number]
  /** Series per cell and side (1: full resolution). */
  block: number
  rowLabels: string[]
  colLabels: string[]
  /** rowLabels × colLabels cells, row-major; null where no finite r falls. */
  values: (number | null)[]
  min?: (number | null)[]
  max?: (number | null)[]
}

export interface HistogramData {
  /** Bin edges, bins + 1 of them, from −1 to 1. */
  edges: number[]
  counts: number[]
}

/** Two series overlaid, downsampled in the backend to a chart's width. */
export interface PairOverlay {
  names: [string, string]
  indices: [number, number]
  /** Pearson r of the whole series in f64, or null when one is constant. */
  r: number | null
  /** Sample index of each point. */
  x: number[]
  values: [number[], number[]]
  /** Samples each point stands for (1: every sample). */
  step: number
}

/** One size of a sweep: each backend's steps 2–5 at the first `series` series and `length` samples. */
export interface SweepPoint {
  series: number
  length: number
  /** Median total ms per backend. */
  backends: Record<string, number>
}

export interface InputSummary {
  path: string
  format: InputFormat
  layout: Layout
  /** M. */
  series: number
  /** N. */
  length: number
  bytes: number
  load_ms: number
  /** Columns of text a CSV had that were left out (no --columns given), e.g. a timestamp. */
  left_out?: string[]
}

export interface CorrelationResult {
  input: InputSummary
  precision: Precision
  /** The backend whose f64 run is the reference every other is compared with. */
  reference: string | null
  runs: BackendRun[]
  /** Series whose values are all equal: r is NaN with every other series. */
  constant: string[]
  /** Every series, most anomalous first (lowest z), constant series last. */
  ranking: RankEntry[]
  threshold: number
  /** The gap factor of the flags (absent in results from before it: every series below the threshold was flagged). */
  gap?: number
  /** Series of the ranking the printed table shows. */
  top: number
  heatmap?: HeatmapData
  histogram?: HistogramData
  /** Where `--matrix` wrote the full matrix. */
  matrix?: { path: string; bytes: number; dtype: '<f8' | '<f4' }
  sweep?: { over: 'series' | 'length'; points: SweepPoint[] }
  /** Present when a pair was asked for. */
  pair?: PairOverlay
  /** Present when a block range was asked for (`zoom`): that range at full resolution. */
  zoom?: HeatmapZoom
  /** Backends not run, with the reason (the GPU when no adapter exists and others were asked for). */
  skipped: { backend: CorrelationBackend; reason: string }[]
}
