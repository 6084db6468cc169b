// A square matrix of values as coloured cells (chartjs-chart-matrix), with a colour bar: e.g. the
// Pearson matrix of many series, block-averaged by its workload to at most a few hundred cells a side.
// Cells stay square whatever the canvas's shape, the axes name what the rows stand for, and values
// beyond the colour scale are counted in the chart's note rather than clipped silently.
import type { Chart, ChartConfiguration, Plugin, ScriptableContext } from 'chart.js'
import { layouts } from 'chart.js'
import { toFont } from 'chart.js/helpers'
import type {} from 'chartjs-chart-matrix' // the 'matrix' chart type's declarations
import { ApiError } from '../errors'
import { asLineConfig } from './chart-type'
import { type ChartConfigOptions, HEATMAP_ASPECT_RATIO, frameOptions } from './common'
import { fitTitles, wrapText } from './fit-titles'
import { formatNumber } from './format'
import { AXIS_COLOR, type ColorStops, DIVERGING_STOPS, FONT_SIZES, MUTED_TEXT_COLOR, TEXT_COLOR, font, rampColor } from './theme'

export interface HeatmapChartData {
  title: string
  /** Cells per side. */
  size: number
  /** size × size values, row-major (row = y, from the top); null draws an empty cell. */
  values: (number | null)[]
  /** What each row and column stands for (size of them), for tooltips. */
  labels: string[]
  /** Short names for the axes' ticks (size of them), e.g. a block's first series; default `labels`. */
  ticks?: string[]
  /** What each column stands for where it differs from the rows (an off-diagonal block range); default `labels`, `ticks`. */
  columnLabels?: string[]
  columnTicks?: string[]
  /** Title of both axes, e.g. "series". */
  axisLabel: string
  /** Ends of the colour scale; values beyond take the end colours. */
  min: number
  max: number
  /** What a value is, for the colour bar and tooltips, e.g. "r". */
  valueLabel: string
  /**
   * diverging (default): light in the middle of min…max, for scales centred on a meaningful zero;
   * sequential: dark to light from min to max, for a range on one side of it (e.g. r in 0.75…1).
   */
  scale?: 'diverging' | 'sequential'
  /** A line under the title: which range the colours span, and why. */
  note?: string
}

/** Viridis: lightness rises from min to max, readable in greyscale and with colour-vision deficiencies. */
const SEQUENTIAL_STOPS: ColorStops = [
  [0, [68, 1, 84]],
  [0.25, [59, 82, 139]],
  [0.5, [33, 145, 140]],
  [0.75, [94, 201, 98]],
  [1, [253, 231, 37]],
]
export const EMPTY_CELL_COLOR = '#d0d7de'
/** Tick labels longer than this are cut with an ellipsis, so a long series name does not squeeze the plot. */
const TICK_CHARS = 14
/** Room right of the plot for the colour bar and its ticks. */
const BAR_ROOM = 64
const BAR_WIDTH = 14

/** The colour of `t` in 0…1 along the scale. */
export function heatColor(t: number, scale: HeatmapChartData['scale'] = 'diverging'): string {
  return rampColor(scale === 'sequential' ? SEQUENTIAL_STOPS : DIVERGING_STOPS, t)
}

/** Cells whose value lies beyond min…max (they take the end colours). */
export function cellsBeyondScale(data: Pick<HeatmapChartData, 'values' | 'min' | 'max'>): number {
  return data.values.reduce<number>((n, v) => (v !== null && (v < data.min || v > data.max) ? n + 1 : n), 0)
}

/** The note under the title: the data's own, and a count of the cells the colour scale clips. */
export function heatmapNote(data: HeatmapChartData): string | undefined {
  const beyond = cellsBeyondScale(data)
  const clipped = beyond ? `${beyond} cell${beyond === 1 ? '' : 's'} beyond ${formatNumber(data.min, 3)}…${formatNumber(data.max, 3)} drawn in the end colours` : ''
  return [data.note, clipped].filter(Boolean).join('; ') || undefined
}

const cut = (s: string) => (s.length > TICK_CHARS ? `${s.slice(0, TICK_CHARS - 1)}…` : s)

/** Pixels a tick label takes along an axis: its characters across (about 7 px each at the ticks' size), or a line's height down. */
const TICK_GAP = 10
const CHAR_PX = 7
const LINE_PX = 16

/**
 * Cells between ticks: 1, 2, 5, 10, 20, 50… — the smallest round step whose labels fit `pixels`
 * of axis, labels of `chars` characters across (0 for an axis whose labels stack, a line each).
 */
export function tickStep(size: number, pixels: number, chars: number): number {
  const per = chars > 0 ? chars * CHAR_PX + TICK_GAP : LINE_PX
  const fit = Math.max(1, Math.floor((Number.isFinite(pixels) && pixels > 0 ? pixels : per) / per))
  const want = Math.ceil(size / fit)
  for (let power = 1; ; power *= 10) for (const m of [1, 2, 5]) if (m * power >= want) return m * power
}

interface Cell {
  x: number
  y: number
  v: number | null
}

export function heatmapConfig(data: HeatmapChartData, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  validate(data)
  const { size, values, labels, min, max } = data
  const color = (v: number | null) => (v === null ? EMPTY_CELL_COLOR : heatColor((v - min) / (max - min), data.scale))
  const interactive = opts.interactive ?? true
  // Elements for the pointer to find (tooltips, clicks); a chart drawn once has its cells painted instead (paintCells).
  const cells: Cell[] = interactive ? new Array(size * size) : []
  if (interactive) for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) cells[y * size + x] = { x, y, v: values[y * size + x] }
  const frame = frameOptions(data.title, opts, heatmapNote(data))
  const rowNames = data.ticks ?? labels
  const columnLabels = data.columnLabels ?? labels
  const columnNames = data.columnTicks ?? data.columnLabels ?? rowNames
  const axis = (reverse: boolean, names: string[]) => ({
    type: 'linear' as const,
    min: -0.5,
    max: size - 0.5,
    reverse,
    offset: false,
    title: { display: true, text: data.axisLabel, color: TEXT_COLOR, font: font(FONT_SIZES.axisTitle) },
    // Ticks at whole cells, named by what the row or column stands for: every cell, or every
    // 2nd, 5th, 10th… as many as the axis has room for (round steps, not Chart.js's 0, 66, 132).
    afterBuildTicks: (scale: { ticks: { value: number }[]; width: number; height: number; isHorizontal(): boolean }) => {
      const step = tickStep(size, scale.isHorizontal() ? scale.width : scale.height, scale.isHorizontal() ? Math.max(...names.map((n) => cut(n).length)) : 0)
      scale.ticks = Array.from({ length: Math.ceil(size / step) }, (_, k) => ({ value: k * step }))
    },
    ticks: {
      color: MUTED_TEXT_COLOR,
      font: font(FONT_SIZES.ticks),
      maxRotation: 0,
      autoSkip: false,
      callback: (v: number | string) => {
        const i = Number(v)
        return Number.isInteger(i) && i >= 0 && i < size ? cut(names[i]) : ''
      },
    },
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
      aspectRatio: HEATMAP_ASPECT_RATIO,
      layout: { padding: PADDING },
      interaction: { mode: 'nearest', intersect: true },
      plugins: {
        ...frame.plugins,
        ...roomUnderTitles(frame.plugins, heatmapNote(data) !== undefined),
        legend: { display: false },
        tooltip: {
          ...frame.plugins?.tooltip,
          callbacks: {
            title: (items) => {
              const c = items[0]?.raw as Cell | undefined
              return c ? `${labels[c.y]} × ${columnLabels[c.x]}` : ''
            },
            label: (item) => {
              const v = (item.raw as Cell).v
              return `${data.valueLabel} = ${v === null ? 'none' : formatNumber(v, 4)}`
            },
          },
        },
      },
      scales: { x: axis(false, columnNames), y: axis(true, rowNames) },
    } as ChartConfiguration<'matrix', Cell[]>['options'],
    plugins: [squareCells(data.axisLabel), fitTitles(data.title, heatmapNote(data)), ...(interactive ? [] : [paintCells(data, color)]), colorBar(data)],
  }
  return asLineConfig(config)
}

/** Pixels between the colour bar's top and its name: half a tick label's height and a gap. */
const LABEL_CLEARANCE = 10
/** Room under the title and note for the bar's name (the layout's padding lies above the title, not under it). */
const NAME_ROOM = LABEL_CLEARANCE + FONT_SIZES.ticks
/** Padding of the chart: room right of the plot for the colour bar. */
const PADDING = { top: 4, right: 16 + BAR_ROOM, bottom: 8, left: 8 }

/**
 * Square cells: after Chart.js lays the chart out, the longer side of the plot gets padding on both
 * ends and the layout runs again (axes refit, so their ticks are skipped for the final size), until
 * the plot is square and centred where it was. The axes' titles are wrapped to the square's side
 * meanwhile: a short card's plot can be smaller than its title is long.
 */
function squareCells(axisLabel: string): Plugin {
  return {
    id: 'paralabSquareCells',
    beforeLayout(chart: Chart) {
      setPadding(chart, 0, 0)
    },
    afterLayout(chart: Chart) {
      let x = 0
      let y = 0
      for (let pass = 0; pass < 6; pass++) {
        const area = chart.chartArea
        const d = area.width - area.height
        const retitled = wrapAxisTitles(chart, axisLabel, Math.min(area.width, area.height))
        if (Math.abs(d) < 1 && !retitled) return
        if (d >= 1) x += d / 2
        else if (d <= -1) y -= d / 2
        setPadding(chart, x, y)
        layouts.update(chart, chart.width, chart.height)
        for (const box of chart.boxes) (box as { configure?: () => void }).configure?.()
      }
    },
  }
}

/** Both axes' titles in lines no longer than `side`; whether either changed. */
function wrapAxisTitles(chart: Chart, text: string, side: number): boolean {
  let changed = false
  for (const id of ['x', 'y']) {
    const title = (chart.scales[id]?.options as { title?: { text: string | string[]; font: object } } | undefined)?.title
    if (!title) continue
    chart.ctx.save()
    chart.ctx.font = toFont(title.font).string
    const lines = wrapText(text, side, (s) => chart.ctx.measureText(s).width)
    chart.ctx.restore()
    const wrapped = lines.length === 1 ? lines[0] : lines
    if (JSON.stringify(wrapped) === JSON.stringify(title.text)) continue
    title.text = wrapped
    changed = true
  }
  return changed
}

/** The title, or the note under it where there is one, with room under it for the colour bar's name. */
function roomUnderTitles(plugins: object | undefined, note: boolean): object {
  const key = note ? 'subtitle' : 'title'
  const block = (plugins as Record<string, { padding: { top?: number; bottom: number } }>)[key]
  return { [key]: { ...block, padding: { ...block.padding, bottom: block.padding.bottom + NAME_ROOM } } }
}

/** The plot's padding plus `x` on the left and right and `y` above and below (Chart.js's resolved options take the assignment). */
function setPadding(chart: Chart, x: number, y: number): void {
  chart.options.layout = { ...chart.options.layout, padding: { top: PADDING.top + y, bottom: PADDING.bottom + y, left: PADDING.left + x, right: PADDING.right + x } }
}

/**
 * The cells painted straight onto the canvas where the matrix elements would be drawn, as they
 * would be drawn: each centred on its value, reaching half a pixel into its neighbours.
 */
function paintCells(data: HeatmapChartData, color: (v: number | null) => string): Plugin {
  return {
    id: 'paralabPaintCells',
    beforeDatasetsDraw(chart) {
      const { ctx, chartArea, scales } = chart
      if (!chartArea) return
      const { size, values } = data
      const w = chartArea.width / size + 1
      const h = chartArea.height / size + 1
      ctx.save()
      ctx.beginPath()
      ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height)
      ctx.clip()
      for (let y = 0; y < size; y++) {
        const cy = scales.y.getPixelForValue(y)
        for (let x = 0; x < size; x++) {
          ctx.fillStyle = color(values[y * size + x])
          ctx.fillRect(scales.x.getPixelForValue(x) - w / 2, cy - h / 2, w, h)
        }
      }
      ctx.restore()
    },
  }
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
        ctx.fillStyle = heatColor(1 - (i + 0.5) / steps, data.scale)
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
      // The scale's name above it, clear of the top end's label (which is centred on the bar's top).
      ctx.textBaseline = 'bottom'
      ctx.fillText(data.valueLabel, left, top - LABEL_CLEARANCE)
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
  if (data.columnLabels && data.columnLabels.length !== data.size) throw new ApiError('invalid-argument', `${where}: ${data.columnLabels.length} column labels for ${data.size} columns`)
  if (!(Number.isFinite(data.min) && Number.isFinite(data.max) && data.min < data.max))
    throw new ApiError('invalid-argument', `${where}: the colour scale needs min < max, got ${data.min} and ${data.max}`)
  data.values.forEach((v, i) => {
    if (v !== null && !Number.isFinite(v)) throw new ApiError('invalid-argument', `${where}: value ${i} is ${v}, neither a number nor null`)
  })
}
