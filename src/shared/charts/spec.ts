// What a chart shows, as plain JSON: the dashboard, the exporter and the CLI all draw from this,
// so it crosses IPC and the WebSocket unchanged.
import type { BarsChartData } from './bars'
import type { GroupedBarsData } from './grouped-bars'
import type { HeatmapChartData } from './heatmap'

export type { BarsChartData, GroupedBarsData, HeatmapChartData }

/** A measured or modelled kernel placed on a roofline. */
export interface RooflineKernel {
  name: string
  /** Arithmetic intensity, FLOP per byte moved to or from memory. */
  intensity: number
  /** Achieved performance, GFLOP/s. */
  performance: number
}

/** The CPU's roof, measured beside the GPU's, with the CPU backends' points under it. */
export interface CpuRoofData {
  /** The CPU as the host names it. */
  cpu: string
  /** Every thread's f64 multiply-adds in SIMD, GFLOP/s, and the read of memory by every thread, GB/s. */
  peak_GFLOP_per_s: number
  bandwidth_GB_per_s: number
  kernels?: RooflineKernel[]
}

export interface RooflineData {
  /**
   * The adapter the roof was measured on (or, without a roof, the kernels ran on), as the GPU runtime
   * names it; '' where the chart holds the CPU's roof alone (a machine without a GPU).
   */
  adapter: string
  /**
   * Peak compute, GFLOP/s (f32 FMA, 2 FLOP each), and memory bandwidth, GB/s (10^9 bytes): both or
   * neither. Without them (the device not measured) the chart shows the kernels' points alone.
   */
  peak_GFLOP_per_s?: number
  bandwidth_GB_per_s?: number
  kernels?: RooflineKernel[]
  /** The CPU's roof on the same axes: the GPU's (peak and bandwidth above) is then labelled as the GPU's. */
  cpu?: CpuRoofData
  /** A line under the title. */
  note?: string
}

/** A roofline whose ceilings are known. */
export type RoofData = RooflineData & { peak_GFLOP_per_s: number; bandwidth_GB_per_s: number }

/** One line of a series chart; `null` leaves a gap (a backend that did not run at that size). */
export interface ChartSeries {
  label: string
  values: (number | null)[]
  /** Palette index of the line's colour; default the series' position. */
  color?: number
  /** Dash pattern index (0 solid), which also picks the markers; default solid, markers by position. */
  dash?: number
}

/** A legend entry standing for every series of its colour, or of its dash pattern when it has no colour. */
export interface LegendKey {
  label: string
  color?: number
  dash?: number
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
  /** A line under the title, e.g. which lines stand for several coinciding ones. */
  note?: string
  /** Legend entries instead of one per series, e.g. a colour per column and a dash per backend. */
  legend?: LegendKey[]
}

/** Chart kinds are kinds of drawing, shared by every workload. */
export type ChartSpec =
  | { kind: 'roofline'; data: RooflineData }
  | { kind: 'series'; data: SeriesChartData }
  | { kind: 'heatmap'; data: HeatmapChartData }
  | { kind: 'grouped-bars'; data: GroupedBarsData }
  | { kind: 'bars'; data: BarsChartData }

export type ChartKind = ChartSpec['kind']
export const CHART_KINDS: readonly ChartKind[] = ['roofline', 'series', 'heatmap', 'bars', 'grouped-bars']
