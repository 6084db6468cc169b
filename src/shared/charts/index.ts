// Chart configurations from chart specs: the dashboard (vue-chartjs) and the headless exporter both
// build their charts here, so an exported image is what the screen shows.
import type { ChartConfiguration } from 'chart.js'
import type { ChartConfigOptions } from './common'
import { rooflineConfig, rooflineTitle } from './roofline'
import { seriesConfig, seriesTitle } from './series'
import type { ChartKind, ChartSpec } from './spec'

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
    case 'stats-time':
    case 'stats-cv':
    case 'stats-mad':
      return seriesConfig(spec.kind, spec.data, opts)
  }
}

export function chartTitle(spec: ChartSpec): string {
  return spec.kind === 'roofline' ? rooflineTitle(spec.data) : seriesTitle(spec.kind, spec.data)
}

const FILE_STEMS: Record<ChartKind, string> = {
  roofline: 'roofline',
  'stats-time': 'stats-time',
  'stats-cv': 'stats-cv',
  'stats-mad': 'stats-mad',
}

/** Default file name without extension, e.g. `roofline` → `roofline.png`. */
export function chartFileStem(spec: ChartSpec): string {
  return FILE_STEMS[spec.kind]
}
