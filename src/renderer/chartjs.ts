// Chart.js is tree-shaken: register what the shared chart configs use (line charts on linear and
// logarithmic axes, title, legend, tooltip). Everything, so a new chart kind needs no change here.
import { Chart, registerables } from 'chart.js'

Chart.register(...registerables)
