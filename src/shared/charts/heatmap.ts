// A square matrix of values as coloured cells (chartjs-chart-matrix), with a colour bar: e.g. the
// Pearson matrix of many series, block-averaged by its workload to at most a few hundred cells a side.
import type { ChartConfiguration, Plugin, ScriptableContext } from 'chart.js'
import { toFont } from 'chart.js/helpers'
import type {} from 'chartjs-chart-matrix' // the 'matrix' chart type's declarations
import { ApiError } from '../errors'
import { asLineConfig } from './chart-type'
import { type ChartConfigOptions, frameOptions } from './common'
import { formatNumber } from './format'
import { AXIS_COLOR, type ColorStops, FONT_SIZES, MUTED_TEXT_COLOR, TEXT_COLOR, font, rampColor } from './theme'

export interface HeatmapChartData {
  title: string
  /** Cells per side. */
  size: number
  /** size × size values, row-major (row = y, from the top); null draws an empty cell. */
  values: (number | null)[]
  /** What each row and column stands for (size of them), for tooltips. */
  labels: string[]
  /** Title of both axes, e.g. "series". */
  axisLabel: string
  /** Ends of the colour scale; values beyond take the end colours. */
  min: number
  max: number
  /** What a value is, for the colour bar and tooltips, e.g. "r". */
  valueLabel: string
}

/** Diverging, light in the middle (ColorBrewer RdBu, reversed): low blue, high red, both readable in greyscale by lightness. */
const STOPS: ColorStops = [
  [0, [33, 102, 172]],
  [0.25, [103, 169, 207]],
  [0.5, [247, 247, 247]],
  [0.75, [239, 138, 98]],
  [1, [178, 24, 43]],
]
export const EMPTY_CELL_COLOR = '#d0d7de'
/** Room right of the plot for the colour bar and its ticks. */
const BAR_ROOM = 64
const BAR_WIDTH = 14

/** The colour of `t` in 0…1 along the scale. */
export function heatColor(t: number): string {
  return rampColor(STOPS, t)
}

interface Cell {
  x: number
  y: number
  v: number | null
}

export function heatmapConfig(data: HeatmapChartData, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  validate(data)
  const { size, values, labels, min, max } = data
  const cells: Cell[] = new Array(size * size)
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) cells[y * size + x] = { x, y, v: values[y * size + x] }
  const color = (v: number | null) => (v === null ? EMPTY_CELL_COLOR : heatColor((v - min) / (max - min)))
  const frame = frameOptions(data.title, opts)
  const axis = (reverse: boolean) => ({
    type: 'linear' as const,
    min: -0.5,
    max: size - 0.5,
    reverse,
    offset: false,
    title: { display: true, text: data.axisLabel, color: TEXT_COLOR, font: font(FONT_SIZES.axisTitle) },
    ticks: { color: MUTED_TEXT_COLOR, font: font(FONT_SIZES.ticks), maxRotation: 0, autoSkip: true, precision: 0, callback: (v: number | string) => (Number.isInteger(Number(v)) ? String(v) : '') },
    grid: { display: false },
    border: { color: AXIS_COLOR },
  })
  const config: ChartConfiguration<'matrix', Cell[]> = {
    type: 'matrix',
    data: {
      datasets: [
        {
          label: data.valueLabel,
          data: cells,
          backgroundColor: (ctx: ScriptableContext<'matrix'>) => color((ctx.raw as Cell | undefined)?.v ?? null),
          borderWidth: 0,
          // Cells fill the plot: their size follows the chart area, whatever the canvas size. Each
          // reaches half a pixel into its neighbours, so anti-aliased edges leave no seams.
          width: ({ chart }) => (chart.chartArea?.width ?? 0) / size + 1,
          height: ({ chart }) => (chart.chartArea?.height ?? 0) / size + 1,
        },
      ],
    },
    options: {
      ...(frame as object),
      layout: { padding: { top: 4, right: 16 + BAR_ROOM, bottom: 8, left: 8 } },
      interaction: { mode: 'nearest', intersect: true },
      plugins: {
        ...frame.plugins,
        legend: { display: false },
        tooltip: {
          ...frame.plugins?.tooltip,
          callbacks: {
            title: (items) => {
              const c = items[0]?.raw as Cell | undefined
              return c ? `${labels[c.y]} × ${labels[c.x]}` : ''
            },
            label: (item) => {
              const v = (item.raw as Cell).v
              return `${data.valueLabel} = ${v === null ? 'none' : formatNumber(v, 4)}`
            },
          },
        },
      },
      scales: { x: axis(false), y: axis(true) },
    } as ChartConfiguration<'matrix', Cell[]>['options'],
    plugins: [colorBar(data)],
  }
  return asLineConfig(config)
}

/** The colour scale beside the plot, with its ends and middle labelled. */
function colorBar(data: HeatmapChartData): Plugin {
  return {
    id: 'paralabColorBar',
    afterDraw(chart) {
      const { ctx, chartArea } = chart
      if (!chartArea) return
      const left = chartArea.right + 16
      const top = chartArea.top
      const height = chartArea.bottom - chartArea.top
      const steps = 64
      ctx.save()
      for (let i = 0; i < steps; i++) {
        ctx.fillStyle = heatColor(1 - (i + 0.5) / steps)
        ctx.fillRect(left, top + (i * height) / steps, BAR_WIDTH, height / steps + 0.5)
      }
      ctx.strokeStyle = AXIS_COLOR
      ctx.lineWidth = 1
      ctx.strokeRect(left, top, BAR_WIDTH, height)
      ctx.fillStyle = MUTED_TEXT_COLOR
      // The font as Chart.js writes its own labels'.
      ctx.font = toFont(font(FONT_SIZES.ticks)).string
      ctx.textBaseline = 'middle'
      for (const [t, v] of [
        [0, data.max],
        [0.5, (data.min + data.max) / 2],
        [1, data.min],
      ] as const)
        ctx.fillText(formatNumber(v, 3), left + BAR_WIDTH + 4, top + t * height)
      ctx.textBaseline = 'bottom'
      ctx.fillText(data.valueLabel, left, top - 2)
      ctx.restore()
    },
  }
}

function validate(data: HeatmapChartData): void {
  const where = `heatmap "${data.title}"`
  if (!Number.isInteger(data.size) || data.size < 1) throw new ApiError('invalid-argument', `${where}: size must be a positive integer, got ${data.size}`)
  if (data.values.length !== data.size * data.size)
    throw new ApiError('invalid-argument', `${where}: ${data.values.length} values for ${data.size} × ${data.size} cells`)
  if (data.labels.length !== data.size) throw new ApiError('invalid-argument', `${where}: ${data.labels.length} labels for ${data.size} rows`)
  if (!(Number.isFinite(data.min) && Number.isFinite(data.max) && data.min < data.max))
    throw new ApiError('invalid-argument', `${where}: the colour scale needs min < max, got ${data.min} and ${data.max}`)
  data.values.forEach((v, i) => {
    if (v !== null && !Number.isFinite(v)) throw new ApiError('invalid-argument', `${where}: value ${i} is ${v}, neither a number nor null`)
  })
}
