// chartConfig gives every chart as Chart.js's 'line' configuration type, which its callers (the
// dashboard panel, the headless renderer) pass through untouched: charts of other types (matrix,
// bar) are handed over under that type.
import type { ChartConfiguration, ChartType } from 'chart.js'

export function asLineConfig<T extends ChartType, D>(config: ChartConfiguration<T, D>): ChartConfiguration<'line'> {
  return config as unknown as ChartConfiguration<'line'>
}
