// Chart configurations from chart specs: the dashboard (vue-chartjs) and the headless exporter both
// build their charts here, so an exported image is what the screen shows.
import type { ChartConfiguration } from 'chart.js'
import type { ChartConfigOptions } from './common'
import { rooflineConfig, rooflineTitle } from './roofline'
import { seriesConfig } from './series'
import type { ChartSpec } from './spec'

export type { ChartConfigOptions } from './common'
export { ASPECT_RATIO } from './common'
export type * from './spec'
export { CHART_KINDS } from './spec'
export { formatNumber } from './format'
export { ridgePoint, roofAt, rooflineFromBench, rooflineModel } from './roofline'

export function chartConfig(spec: ChartSpec, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  switch (spec.kind) {
    case 'roofline':
      return rooflineConfig(spec.data, opts)
    case 'series':
      return seriesConfig(spec.data, opts)
  }
}

export function chartTitle(spec: ChartSpec): string {
  return spec.kind === 'roofline' ? rooflineTitle(spec.data) : spec.data.title
}
