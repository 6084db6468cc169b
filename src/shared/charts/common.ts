// What every chart shares: the frame (title, legend, sizing, animation) and how axes look.
import type { ChartOptions, ChartType, Scale, ScriptableScaleContext, Tick } from 'chart.js'
import { formatNumber } from './format'
import { AXIS_COLOR, FONT_SIZES, GRID_COLOR, MUTED_TEXT_COLOR, TEXT_COLOR, font } from './theme'

export interface ChartConfigOptions {
  /** Off for headless rendering, where only the final frame is drawn. Default: Chart.js's animations. */
  animation?: boolean
  /** Overrides the chart's own choice of a logarithmic y axis (series charts). */
  logY?: boolean
  /**
   * True (the default) fills the container's width at `ASPECT_RATIO`, as the dashboard wants;
   * the headless renderer passes false and draws at the canvas's own size.
   */
  responsive?: boolean
  /**
   * False for a chart drawn once with no pointer over it (exports): a heatmap then paints its cells
   * straight onto the canvas instead of making a Chart.js element of each (65 536 of them at
   * 256 × 256, some 70 MB). Default true.
   */
  interactive?: boolean
}

/** Width / height of a chart on screen; the export default size keeps it. */
export const ASPECT_RATIO = 1.6
/**
 * A heatmap's frame is squarer: its plot is square, between a title and note above and axes below
 * and beside it, so at 1.6 a half-width card (480 × 300) left the plot 119 px a side.
 */
export const HEATMAP_ASPECT_RATIO = 1.15

/** Width / height of a chart of `kind`, on screen and in an export of no given height. */
export const aspectRatioOf = (kind: string): number => (kind === 'heatmap' ? HEATMAP_ASPECT_RATIO : ASPECT_RATIO)

type LineOptions = ChartOptions<'line'>
export type AxisOptions = NonNullable<LineOptions['scales']>[string]

/** The frame of a chart of type `T`; `note` is a line under the title. */
export function frameOptions<T extends ChartType = 'line'>(title: string, opts: ChartConfigOptions, note?: string): ChartOptions<T> {
  const frame: LineOptions = {
    responsive: opts.responsive ?? true,
    maintainAspectRatio: true,
    aspectRatio: ASPECT_RATIO,
    ...(opts.animation === false ? { animation: false as const } : {}),
    layout: { padding: { top: 4, right: 16, bottom: 8, left: 8 } },
    plugins: {
      title: { display: true, text: title, color: TEXT_COLOR, font: font(FONT_SIZES.title, 'bold'), padding: { top: 4, bottom: note ? 2 : 8 } },
      ...(note ? { subtitle: { display: true, text: note, color: MUTED_TEXT_COLOR, font: font(FONT_SIZES.note), padding: { bottom: 8 } } } : {}),
      legend: {
        display: true,
        position: 'top',
        labels: {
          color: TEXT_COLOR,
          font: font(FONT_SIZES.legend),
          usePointStyle: true,
          boxWidth: 8,
          boxHeight: 8,
          padding: 14,
          // In dataset order, whatever order they are drawn in.
          sort: (a, b) => (a.datasetIndex ?? 0) - (b.datasetIndex ?? 0),
        },
      },
      tooltip: { titleFont: font(12, 'bold'), bodyFont: font(12) },
    },
  }
  // Nothing here depends on the chart type: only Chart.js's typings do.
  return frame as ChartOptions<T>
}

export function axis(title: string, log: boolean, range: { min?: number; max?: number } = {}): AxisOptions {
  return {
    type: log ? 'logarithmic' : 'linear',
    ...range,
    title: { display: true, text: title, color: TEXT_COLOR, font: font(FONT_SIZES.axisTitle) },
    ticks: {
      color: MUTED_TEXT_COLOR,
      font: font(FONT_SIZES.ticks),
      maxRotation: 0,
      // Log axes keep every tick for the minor grid and label only some (see logTickLabel).
      autoSkip: !log,
      callback: log ? logTickLabel : (value) => formatNumber(Number(value), 6),
    },
    // Decades stand out from the minor grid on log axes.
    grid: { color: (ctx: ScriptableScaleContext) => (log && ctx.tick?.major ? 'rgba(0, 0, 0, 0.16)' : GRID_COLOR) },
    border: { color: AXIS_COLOR },
  } as AxisOptions
}

/** An axis of named categories, e.g. one bar per backend. */
export function categoryAxis(title: string): AxisOptions {
  return {
    type: 'category',
    title: { display: true, text: title, color: TEXT_COLOR, font: font(FONT_SIZES.axisTitle) },
    // Every category named; turned (up to upright) where they do not fit side by side.
    ticks: { color: TEXT_COLOR, font: font(FONT_SIZES.legend), maxRotation: 90, autoSkip: false },
    grid: { display: false },
    border: { color: AXIS_COLOR },
  } as AxisOptions
}

/** Labels decades only when the axis spans more than three, else 1, 2 and 5 of each decade. */
function logTickLabel(this: Scale, value: number | string, _index: number, ticks: Tick[]): string {
  const v = Number(value)
  if (!(v > 0)) return ''
  const mantissa = v / 10 ** Math.floor(Math.log10(v) + 1e-9)
  const is = (m: number) => Math.abs(mantissa - m) < 1e-6
  const lo = ticks[0]?.value ?? v
  const hi = ticks[ticks.length - 1]?.value ?? v
  const decades = lo > 0 ? Math.log10(hi / lo) : Infinity
  const shown = decades > 3 ? is(1) : is(1) || is(2) || is(5)
  return shown ? formatNumber(v) : ''
}

/** Whole decades around the positive values, so a log axis neither clips the extreme points nor ends mid-decade. */
export function decadeRange(values: Iterable<number>): { min: number; max: number } | undefined {
  const span = positiveSpan(values)
  if (!span) return undefined
  const min = decadeBelow(span.lo)
  const max = decadeAbove(span.hi)
  return { min, max: max > min ? max : min * 10 }
}

/**
 * The 1–2–5 steps around the positive values: a log axis that clips no point and, unlike whole
 * decades, leaves little of the plot empty (e.g. prefixes of 100 to 2,000 rows: 100…2,000, not 100…10,000).
 */
export function stepRange(values: Iterable<number>): { min: number; max: number } | undefined {
  const span = positiveSpan(values)
  if (!span) return undefined
  const steps = (v: number) => [1, 2, 5, 10].map((m) => m * decadeBelow(v))
  const min = steps(span.lo).findLast((s) => s <= span.lo * (1 + 1e-9))!
  const max = steps(span.hi).find((s) => s >= span.hi * (1 - 1e-9))!
  return { min, max: max > min ? max : min * 2 }
}

function positiveSpan(values: Iterable<number>): { lo: number; hi: number } | undefined {
  let lo = Infinity
  let hi = -Infinity
  for (const v of values) {
    if (v > 0 && Number.isFinite(v)) {
      lo = Math.min(lo, v)
      hi = Math.max(hi, v)
    }
  }
  return lo <= hi ? { lo, hi } : undefined
}

export function decadeBelow(v: number): number {
  return 10 ** Math.floor(Math.log10(v) + 1e-9)
}

export function decadeAbove(v: number): number {
  return 10 ** Math.ceil(Math.log10(v) - 1e-9)
}

/** Non-positive values have no place on a log axis: they become gaps rather than wild points. */
export function plottable(value: number | null, log: boolean): number {
  if (value === null || !Number.isFinite(value)) return NaN
  return log && value <= 0 ? NaN : value
}
