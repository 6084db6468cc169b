// Chart configurations from chart specs: the dashboard (vue-chartjs) and the headless exporter both
// build their charts here, so an exported image is what the screen shows.
import type { ChartConfiguration } from 'chart.js'
import { barsConfig } from './bars'
import type { ChartConfigOptions } from './common'
import { fitTitles } from './fit-titles'
import { groupedBarsConfig } from './grouped-bars'
import { heatmapConfig } from './heatmap'
import { rooflineConfig, rooflineTitle } from './roofline'
import { seriesConfig } from './series'
import type { ChartSpec } from './spec'

export type { ChartConfigOptions } from './common'
export { ASPECT_RATIO, aspectRatioOf } from './common'
export type * from './spec'
export { CHART_KINDS } from './spec'
export { formatNumber } from './format'
export { cpuRoofFromBench, deviceRoofline, hasRoof, ridgePoint, roofAt, rooflineFromBench, rooflineModel } from './roofline'

/** Every kind's configuration, typed as a line chart's whatever its type (see chart-type.ts). */
export function chartConfig(spec: ChartSpec, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  const config = kindConfig(spec, opts)
  // The heatmap fits its titles among its own plugins, once its plot is squared.
  if (spec.kind !== 'heatmap') config.plugins = [...(config.plugins ?? []), fitTitles(chartTitle(spec), spec.data.note)]
  return config
}

function kindConfig(spec: ChartSpec, opts: ChartConfigOptions): ChartConfiguration<'line'> {
  switch (spec.kind) {
    case 'roofline':
      return rooflineConfig(spec.data, opts)
    case 'series':
      return seriesConfig(spec.data, opts)
    case 'heatmap':
      return heatmapConfig(spec.data, opts)
    case 'bars':
      return barsConfig(spec.data, opts)
    case 'grouped-bars':
      return groupedBarsConfig(spec.data, opts)
  }
}

export function chartTitle(spec: ChartSpec): string {
  return spec.kind === 'roofline' ? rooflineTitle(spec.data) : spec.data.title
}
