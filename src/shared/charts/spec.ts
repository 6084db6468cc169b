// What a chart shows, as plain JSON: the dashboard, the exporter and the CLI all draw from this,
// so it crosses IPC and the WebSocket unchanged.

/** A measured or modelled kernel placed on a roofline. */
export interface RooflineKernel {
  name: string
  /** Arithmetic intensity, FLOP per byte moved to or from memory. */
  intensity: number
  /** Achieved performance, GFLOP/s. */
  performance: number
}

export interface RooflineData {
  /** The adapter the roof was measured on, as the GPU runtime names it. */
  adapter: string
  /** Peak compute, GFLOP/s (f32 FMA, 2 FLOP each). */
  peak_GFLOP_per_s: number
  /** Memory bandwidth, GB/s (10^9 bytes). */
  bandwidth_GB_per_s: number
  kernels?: RooflineKernel[]
}

/** One line of a series chart; `null` leaves a gap (a backend that did not run at that size). */
export interface ChartSeries {
  label: string
  values: (number | null)[]
}

/** Lines of values against a numeric x (e.g. time or CV against prefix size), one per backend or column. */
export interface SeriesChartData {
  title: string
  /** Axis titles with their units, e.g. "rows" and "time (ms)". */
  xLabel: string
  yLabel: string
  /** Every series has one value per entry. */
  x: number[]
  series: ChartSeries[]
  /** Logarithmic y axis; non-positive values are left out on it. Default false. */
  logY?: boolean
  /** Logarithmic x axis, for prefixes spanning several decades. Default false. */
  logX?: boolean
}

/** Chart kinds are kinds of drawing, shared by every workload. */
export type ChartSpec = { kind: 'roofline'; data: RooflineData } | { kind: 'series'; data: SeriesChartData }

export type ChartKind = ChartSpec['kind']
export const CHART_KINDS: readonly ChartKind[] = ['roofline', 'series']
