// Lines of values against a numeric x: e.g. the accelerometer study's time, coefficient-of-variation
// and median-absolute-deviation charts against prefix size.
import type { ChartConfiguration, ChartDataset, ChartOptions, LegendItem } from 'chart.js'
import { ApiError } from '../errors'
import { type ChartConfigOptions, axis, decadeRange, frameOptions, plottable, stepRange } from './common'
import { formatNumber } from './format'
import type { LegendKey, SeriesChartData } from './spec'
import { KEY_COLOR, TEXT_COLOR, seriesColor, seriesDash, seriesPointStyle } from './theme'

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
      borderColor: seriesColor(s.color ?? i),
      backgroundColor: seriesColor(s.color ?? i),
      borderDash: seriesDash(s.dash ?? 0),
      pointStyle: seriesPointStyle(s.dash ?? i),
      pointRadius: marked ? 3.5 : 0,
      pointHoverRadius: 5,
      borderWidth: 2,
      tension: 0,
      spanGaps: false,
    }),
  )
  const frame = frameOptions(data.title, opts, data.note)
  return {
    type: 'line',
    data: { datasets },
    options: {
      ...frame,
      interaction: { mode: 'index', intersect: false },
      plugins: {
        ...frame.plugins,
        ...(data.legend && { legend: keyLegend(data, frame) }),
        tooltip: {
          ...frame.plugins?.tooltip,
          callbacks: {
            title: (items) => (items[0] ? `${data.xLabel} ${formatNumber(items[0].parsed.x ?? NaN, 9)}` : ''),
            label: (item) => `${item.dataset.label}: ${formatNumber(item.parsed.y ?? NaN, 4)}`,
          },
        },
      },
      scales: {
        x: axis(data.xLabel, logX, (logX && stepRange(data.x)) || {}),
        y: axis(data.yLabel, logY, (logY && decadeRange(data.series.flatMap((s) => s.values).filter((v) => v !== null))) || {}),
      },
    },
  }
}

/**
 * A legend of keys: each entry shows its colour or dash pattern and stands for every series that
 * has it; a click hides or shows them all.
 */
function keyLegend(data: SeriesChartData, frame: ChartOptions<'line'>): NonNullable<ChartOptions<'line'>['plugins']>['legend'] {
  const keys = data.legend ?? []
  const members = (k: LegendKey) =>
    data.series.flatMap((s, i) => ((k.color !== undefined ? (s.color ?? i) === k.color : (s.dash ?? 0) === (k.dash ?? 0)) ? [i] : []))
  return {
    ...frame.plugins?.legend,
    labels: {
      ...frame.plugins?.legend?.labels,
      pointStyleWidth: 28,
      generateLabels: (chart) =>
        keys.map((k, index): LegendItem => {
          const color = k.color === undefined ? KEY_COLOR : seriesColor(k.color)
          return {
            text: k.label,
            index,
            strokeStyle: color,
            fillStyle: color,
            fontColor: TEXT_COLOR,
            lineWidth: 2,
            lineDash: seriesDash(k.dash ?? 0),
            pointStyle: 'line',
            hidden: members(k).every((i) => !chart.isDatasetVisible(i)),
          }
        }),
    },
    onClick: (_event, item, legend) => {
      const shown = members(keys[item.index ?? 0])
      const show = shown.every((i) => !legend.chart.isDatasetVisible(i))
      for (const i of shown) legend.chart.setDatasetVisibility(i, show)
      legend.chart.update()
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
