// Values against prefix size, one line per backend or per column: the accelerometer study's
// time, coefficient-of-variation and median-absolute-deviation charts.
import type { ChartConfiguration, ChartDataset } from 'chart.js'
import { ApiError } from '../api'
import { type ChartConfigOptions, axis, decadeRange, frameOptions, plottable } from './common'
import { formatNumber } from './format'
import type { SeriesChartData } from './spec'
import { seriesColor, seriesPointStyle } from './theme'

export type SeriesKind = 'stats-time' | 'stats-cv' | 'stats-mad'

const TITLES: Record<SeriesKind, string> = {
  'stats-time': 'Time vs prefix size',
  'stats-cv': 'Coefficient of variation vs prefix size',
  'stats-mad': 'Median absolute deviation vs prefix size',
}

export const Y_AXIS_TITLES: Record<SeriesKind, string> = {
  'stats-time': 'time (ms)',
  'stats-cv': 'coefficient of variation',
  'stats-mad': 'median absolute deviation',
}

export const X_AXIS_TITLE = 'rows'

/** Beyond this many points per line, markers would hide the line: draw the line alone. */
const MAX_MARKED_POINTS = 40

export function seriesTitle(kind: SeriesKind, data: SeriesChartData): string {
  return data.title ?? TITLES[kind]
}

/** Time spans orders of magnitude between backends, so it is logarithmic unless asked otherwise. */
export function seriesLogY(kind: SeriesKind, data: SeriesChartData, opts: ChartConfigOptions = {}): boolean {
  return opts.logY ?? data.logY ?? kind === 'stats-time'
}

export function seriesConfig(kind: SeriesKind, data: SeriesChartData, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  validate(kind, data)
  const logY = seriesLogY(kind, data, opts)
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
  const frame = frameOptions(seriesTitle(kind, data), opts)
  const yTitle = Y_AXIS_TITLES[kind]
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
            title: (items) => (items[0] ? `${formatNumber(items[0].parsed.x ?? NaN, 9)} rows` : ''),
            label: (item) => `${item.dataset.label}: ${formatNumber(item.parsed.y ?? NaN, 4)}`,
          },
        },
      },
      scales: {
        x: axis(X_AXIS_TITLE, logX, (logX && decadeRange(data.x)) || {}),
        y: axis(yTitle, logY, (logY && decadeRange(data.series.flatMap((s) => s.values).filter((v) => v !== null))) || {}),
      },
    },
  }
}

function validate(kind: SeriesKind, data: SeriesChartData): void {
  data.x.forEach((x, i) => {
    if (!Number.isFinite(x)) throw new ApiError('invalid-argument', `${kind} chart: x[${i}] is ${x}, not a row count`)
  })
  for (const s of data.series) {
    if (s.values.length !== data.x.length)
      throw new ApiError('invalid-argument', `${kind} chart: series "${s.label}" has ${s.values.length} values for ${data.x.length} prefix sizes`)
  }
}
