// Worker thread entry: draws a chart for export, so that drawing a large one (seconds) never holds
// up the thread that answers requests.
import { serveTasks } from '../workers/serve-tasks'
import { chartImageSize, renderChart } from './render'
import type { ChartImageFormat } from './render'
import type { ChartSize } from '../../shared/api'
import type { ChartSpec } from '../../shared/charts/spec'

serveTasks({
  render: async ({ chart, format, size }: { chart: ChartSpec; format: ChartImageFormat; size?: ChartSize }) => renderChart(chart, format, chartImageSize(size)),
})
