// A value per category as bars, each with an optional low–high whisker: e.g. each backend's
// speedup over serial, the median with the min–max over the repeats. The whiskers are drawn by
// chartjs-chart-error-bars, which the dashboard (src/renderer/chartjs.ts) and the headless
// renderer (src/main/charts/render.ts) register.
import type { ChartConfiguration } from 'chart.js'
import type { IErrorBarYDataPoint } from 'chartjs-chart-error-bars'
import { ApiError } from '../errors'
import { asLineConfig } from './chart-type'
import { type ChartConfigOptions, axis, categoryAxis, frameOptions, plottable, stepRange } from './common'
import { formatNumber } from './format'
import { TEXT_COLOR, seriesColor } from './theme'

/** One bar; `low`…`high` is drawn as a whisker (e.g. the min–max over repeated runs). */
export interface Bar {
  label: string
  value: number
  low?: number
  high?: number
  /** Palette index of the bar's colour; default the bar's position. */
  color?: number
}

/** A value per category as bars, with optional error ranges (e.g. each backend's speedup). */
export interface BarsChartData {
  title: string
  /** A line under the title. */
  note?: string
  /** Axis titles with their units, e.g. "backend" and "speedup over serial (×)". */
  xLabel: string
  yLabel: string
  bars: Bar[]
  /** Logarithmic y axis; default false (linear from 0). */
  logY?: boolean
}

/** Bars are filled lighter than their outline, so a whisker crossing one stays visible. */
const FILL_ALPHA = 'b3'

export function barsConfig(data: BarsChartData, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  validate(data)
  const logY = opts.logY ?? data.logY ?? false
  const colors = data.bars.map((b, i) => seriesColor(b.color ?? i))
  const points = data.bars.map(
    (b): IErrorBarYDataPoint => ({ y: plottable(b.value, logY), yMin: plottable(b.low ?? b.value, logY), yMax: plottable(b.high ?? b.value, logY) }),
  )
  const frame = frameOptions<'barWithErrorBars'>(data.title, opts, data.note)
  const range = logY ? stepRange(data.bars.flatMap((b) => [b.value, b.low ?? b.value, b.high ?? b.value])) : { min: 0 }
  const config: ChartConfiguration<'barWithErrorBars'> = {
    type: 'barWithErrorBars',
    data: {
      labels: data.bars.map((b) => b.label),
      datasets: [
        {
          label: data.yLabel,
          data: points,
          backgroundColor: colors.map((c) => c + FILL_ALPHA),
          borderColor: colors,
          borderWidth: 1.5,
          errorBarColor: TEXT_COLOR,
          errorBarWhiskerColor: TEXT_COLOR,
          errorBarLineWidth: 1.5,
          errorBarWhiskerLineWidth: 1.5,
        },
      ],
    },
    options: {
      ...frame,
      plugins: {
        ...frame.plugins,
        // The category axis names every bar.
        legend: { display: false },
        tooltip: {
          ...frame.plugins?.tooltip,
          callbacks: {
            label: (item) => {
              const b = data.bars[item.dataIndex]
              const spread = b.low === undefined && b.high === undefined ? '' : ` (${formatNumber(b.low ?? b.value, 4)}–${formatNumber(b.high ?? b.value, 4)})`
              return `${data.yLabel}: ${formatNumber(b.value, 4)}${spread}`
            },
          },
        },
      },
      scales: {
        x: categoryAxis(data.xLabel),
        y: axis(data.yLabel, logY, range ?? {}),
      },
    },
  }
  return asLineConfig(config)
}

function validate(data: BarsChartData): void {
  for (const b of data.bars) {
    const { value, low = value, high = value } = b
    if (![value, low, high].every(Number.isFinite))
      throw new ApiError('invalid-argument', `chart "${data.title}": bar "${b.label}" needs finite numbers, got ${value} (${low}–${high})`)
    if (!(low <= value && value <= high))
      throw new ApiError('invalid-argument', `chart "${data.title}": bar "${b.label}" has ${value} outside its range ${low}–${high}`)
  }
}
