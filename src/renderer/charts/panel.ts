// What a chart panel shows: the spec with the panel's log-axis toggle and x range applied.
// Both are applied to the spec itself, not to Chart.js options, so an export is what the screen shows.
import type { ChartConfiguration } from 'chart.js'
import { chartConfig } from '../../shared/charts'
import type { ChartSpec, SeriesChartData } from '../../shared/charts/spec'

export interface PanelView {
  /** Logarithmic y axis (series, bar and grouped-bar charts); undefined keeps the spec's own choice. */
  logY?: boolean
  /** Rows range to show (series charts); null or undefined leaves that end open. */
  xMin?: number | null
  xMax?: number | null
}

export function isSeriesSpec(spec: ChartSpec): spec is Extract<ChartSpec, { kind: 'series' }> {
  return spec.kind === 'series'
}

/** Charts whose y axis can be logarithmic. */
function hasLogY(spec: ChartSpec): spec is Extract<ChartSpec, { kind: 'series' | 'bars' | 'grouped-bars' }> {
  return spec.kind === 'series' || spec.kind === 'bars' || spec.kind === 'grouped-bars'
}

/** The log-axis default the chart configs apply: the spec's own choice, else linear. */
export function defaultLogY(spec: ChartSpec): boolean {
  return hasLogY(spec) ? (spec.data.logY ?? false) : false
}

export function shownSpec(spec: ChartSpec, view: PanelView): ChartSpec {
  if (spec.kind === 'bars' && view.logY !== undefined) return { ...spec, data: { ...spec.data, logY: view.logY } }
  if (spec.kind === 'grouped-bars' && view.logY !== undefined) return { ...spec, data: { ...spec.data, logY: view.logY } }
  if (!isSeriesSpec(spec)) return spec
  let data: SeriesChartData = spec.data
  if (view.logY !== undefined) data = { ...data, logY: view.logY }
  const lo = view.xMin ?? -Infinity
  const hi = view.xMax ?? Infinity
  if (lo > -Infinity || hi < Infinity) {
    const keep = data.x.map((x) => x >= lo && x <= hi)
    data = {
      ...data,
      x: data.x.filter((_, i) => keep[i]),
      series: data.series.map((s) => ({ ...s, values: s.values.filter((_, i) => keep[i]) })),
    }
  }
  return { ...spec, data }
}

/** The Chart.js configuration of the shown spec, or the reason it cannot be drawn. */
export function shownConfig(spec: ChartSpec): { config: ChartConfiguration<'line'> } | { error: string } {
  try {
    return { config: chartConfig(spec) }
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
}
