// Lines of values against a numeric x: e.g. the accelerometer study's time, coefficient-of-variation
// and median-absolute-deviation charts against prefix size.
import type { ChartConfiguration, ChartDataset } from 'chart.js'
import { ApiError } from '../errors'
import { type ChartConfigOptions, axis, decadeRange, frameOptions, plottable } from './common'
import { formatNumber } from './format'
import type { SeriesChartData } from './spec'
import { seriesColor, seriesPointStyle } from './theme'

/** Beyond this many points per line, markers would hide the line: draw the line alone. */
const MAX_MARKED_POINTS = 40

export function seriesConfig(data: SeriesChartData, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  validate(data)
  const logY = opts.logY ?? data.logY ?? false
  const logX = data.logX ?? false
  const marked = data.x.length <= MAX_MARKED_POINTS
  const datasets = data.series.map(
    (s, i): ChartDataset<'line'> => ({
      label: s.label,
      data: data.x.map((x, j) => ({ x: plottable(x, logX), y: plottable(s.values[j], logY) })),
      borderColor: seriesColor(i),
      backgroundColor: seriesColor(i),
      pointStyle: seriesPointStyle(i),
      pointRadius: marked ? 3.5 : 0,
      pointHoverRadius: 5,
      borderWidth: 2,
      tension: 0,
      spanGaps: false,
    }),
  )
  const frame = frameOptions(data.title, opts)
  return {
    type: 'line',
    data: { datasets },
    options: {
      ...frame,
      interaction: { mode: 'index', intersect: false },
      plugins: {
        ...frame.plugins,
        tooltip: {
          ...frame.plugins?.tooltip,
          callbacks: {
            title: (items) => (items[0] ? `${data.xLabel} ${formatNumber(items[0].parsed.x ?? NaN, 9)}` : ''),
            label: (item) => `${item.dataset.label}: ${formatNumber(item.parsed.y ?? NaN, 4)}`,
          },
        },
      },
      scales: {
        x: axis(data.xLabel, logX, (logX && decadeRange(data.x)) || {}),
        y: axis(data.yLabel, logY, (logY && decadeRange(data.series.flatMap((s) => s.values).filter((v) => v !== null))) || {}),
      },
    },
  }
}

function validate(data: SeriesChartData): void {
  data.x.forEach((x, i) => {
    if (!Number.isFinite(x)) throw new ApiError('invalid-argument', `chart "${data.title}": x[${i}] is ${x}, not a number`)
  })
  for (const s of data.series) {
    if (s.values.length !== data.x.length)
      throw new ApiError('invalid-argument', `chart "${data.title}": series "${s.label}" has ${s.values.length} values for ${data.x.length} x values`)
  }
}
