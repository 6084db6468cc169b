// Worker thread entry: draws a chart for export, so that drawing a large one (seconds) never holds
// up the thread that answers requests.
import { serveTasks } from '../workers/serve-tasks'
import { renderChart } from './render'
import type { ChartImageFormat } from './render'
import type { ChartSpec } from '../../shared/charts/spec'

serveTasks({
  render: async ({ chart, format, size }: { chart: ChartSpec; format: ChartImageFormat; size: Parameters<typeof renderChart>[2] }) => renderChart(chart, format, size),
})
