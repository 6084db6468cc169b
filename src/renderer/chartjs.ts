// Chart.js is tree-shaken: register what the shared chart configs use (line charts on linear and
// logarithmic axes, title, legend, tooltip). Everything, so a new chart kind needs no change here,
// and the chart types of plugins: chartjs-chart-matrix's for heatmaps, chartjs-chart-error-bars's
// bars with whiskers for bar charts.
import { Chart, registerables } from 'chart.js'
import { BarWithErrorBar, BarWithErrorBarsController } from 'chartjs-chart-error-bars'
import { MatrixController, MatrixElement } from 'chartjs-chart-matrix'

Chart.register(...registerables, MatrixController, MatrixElement, BarWithErrorBarsController, BarWithErrorBar)
