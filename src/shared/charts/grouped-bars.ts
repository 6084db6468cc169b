// Bars over named categories, one colour per series, side by side or stacked, with optional
// horizontal reference lines: e.g. a histogram, a ranking against its threshold, time per stage.
import type { ChartConfiguration, ChartDataset, Plugin } from 'chart.js'
import { toFont } from 'chart.js/helpers'
import { ApiError } from '../errors'
import { asLineConfig } from './chart-type'
import { type ChartConfigOptions, axis, decadeRange, frameOptions, plottable } from './common'
import { formatNumber } from './format'
import { AXIS_COLOR, FONT_SIZES, MUTED_TEXT_COLOR, ROOF_COLOR, TEXT_COLOR, font, seriesColor } from './theme'

export interface GroupedBarsData {
  title: string
  xLabel: string
  yLabel: string
  categories: string[]
  /** One value per category; null leaves no bar. */
  series: { label: string; values: (number | null)[] }[]
  /** Series stack on each other (e.g. stages making up a total). Default false. */
  stacked?: boolean
  /** Bars touch, as a histogram's bins. Default false. */
  histogram?: boolean
  /** Logarithmic y axis; non-positive values are left out on it. Default false. */
  logY?: boolean
  /** Horizontal lines across the plot, e.g. a threshold. */
  lines?: { label: string; value: number }[]
  /** A line under the title. */
  note?: string
}

export function groupedBarsConfig(data: GroupedBarsData, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  validate(data)
  const logY = opts.logY ?? data.logY ?? false
  const stacked = data.stacked ?? false
  const datasets: ChartDataset<'bar'>[] = data.series.map((s, i) => ({
    label: s.label,
    data: s.values.map((v) => plottable(v, logY)),
    backgroundColor: seriesColor(i),
    borderColor: seriesColor(i),
    borderWidth: 0,
    ...(data.histogram ? { barPercentage: 1, categoryPercentage: 1 } : {}),
  }))
  const values = data.series.flatMap((s) => s.values).filter((v): v is number => v !== null)
  const frame = frameOptions(data.title, opts, data.note)
  const y = axis(data.yLabel, logY, (logY && decadeRange([...values, ...(data.lines ?? []).map((l) => l.value)])) || {})
  const config: ChartConfiguration<'bar'> = {
    type: 'bar',
    data: { labels: data.categories, datasets },
    options: {
      ...(frame as object),
      interaction: { mode: 'index', intersect: false },
      plugins: {
        ...frame.plugins,
        // One series names itself in the title.
        legend: { ...frame.plugins?.legend, display: data.series.length > 1 },
        tooltip: {
          ...frame.plugins?.tooltip,
          callbacks: { label: (item) => `${item.dataset.label}: ${formatNumber(item.parsed.y ?? NaN, 4)}` },
        },
      },
      scales: {
        // Category labels as given, thinned where they would overlap.
        x: {
          type: 'category',
          stacked,
          title: { display: true, text: data.xLabel, color: TEXT_COLOR, font: font(FONT_SIZES.axisTitle) },
          ticks: { color: MUTED_TEXT_COLOR, font: font(FONT_SIZES.ticks), autoSkip: true, maxRotation: 60 },
          grid: { display: false },
          border: { color: AXIS_COLOR },
        },
        y: { ...y, stacked, beginAtZero: !logY },
      },
    } as ChartConfiguration<'bar'>['options'],
    plugins: data.lines?.length ? [referenceLines(data.lines)] : [],
  }
  return asLineConfig(config)
}

/** Dashed horizontal lines across the plot, labelled at their right end. */
function referenceLines(lines: NonNullable<GroupedBarsData['lines']>): Plugin {
  return {
    id: 'paralabReferenceLines',
    afterDatasetsDraw(chart) {
      const { ctx, chartArea } = chart
      const scale = chart.scales.y
      if (!chartArea || !scale) return
      ctx.save()
      ctx.strokeStyle = ROOF_COLOR
      ctx.fillStyle = ROOF_COLOR
      ctx.lineWidth = 1.5
      // The font as Chart.js writes its own labels'.
      ctx.font = toFont(font(FONT_SIZES.ticks)).string
      ctx.textAlign = 'right'
      ctx.textBaseline = 'bottom'
      for (const line of lines) {
        const y = scale.getPixelForValue(line.value)
        if (!(y >= chartArea.top && y <= chartArea.bottom)) continue
        // Dashed for the line only: the SVG canvas drops text drawn while a dash is set.
        ctx.setLineDash([6, 4])
        ctx.beginPath()
        ctx.moveTo(chartArea.left, y)
        ctx.lineTo(chartArea.right, y)
        ctx.stroke()
        ctx.setLineDash([])
        ctx.fillText(line.label, chartArea.right - 4, y - 2)
      }
      ctx.restore()
    },
  }
}

function validate(data: GroupedBarsData): void {
  for (const s of data.series)
    if (s.values.length !== data.categories.length)
      throw new ApiError('invalid-argument', `chart "${data.title}": series "${s.label}" has ${s.values.length} values for ${data.categories.length} categories`)
  for (const l of data.lines ?? [])
    if (!Number.isFinite(l.value)) throw new ApiError('invalid-argument', `chart "${data.title}": line "${l.label}" is at ${l.value}, not a number`)
}
