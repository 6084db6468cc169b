// Heatmaps that show the science: the correlation heatmap's colours span the data's range (or −1…1,
// as asked) and say which; the distance heatmap says what its colours span; values beyond a scale
// are counted, never clipped silently; cells stay square; axes name the series; the ranking order
// gives flagged series visible cells of their own.
import { describe, expect, it } from 'vitest'
import { createCanvas } from '@napi-rs/canvas'
import * as chartjs from 'chart.js'
import { toFont, toPadding } from 'chart.js/helpers'
import { MatrixController, MatrixElement } from 'chartjs-chart-matrix'
import { aspectRatioOf, chartConfig } from '../../src/shared/charts'
import { cellsBeyondScale, heatColor, tickStep } from '../../src/shared/charts/heatmap'
import type { ChartSpec, HeatmapChartData } from '../../src/shared/charts/spec'
import { heatmapOf, RANKING_CELLS } from '../../src/main/workloads/correlation/ranking'
import { heatmapChart } from '../../src/shared/workloads/correlation/charts'
import type { CorrelationResult, RankEntry } from '../../src/shared/workloads/correlation/types'
import { pathsChartSpecs } from '../../src/shared/workloads/paths/charts'
import type { PathsGraphResult } from '../../src/shared/workloads/paths/types'

chartjs.Chart.register(...chartjs.registerables, MatrixController, MatrixElement)

const names = ['walk_a', 'walk_b', 'walk_c', 'a_series_with_a_long_name']
const ranking: RankEntry[] = names.map((name, index) => ({ name, index, meanR: 0.9, medianR: 0.9, z: 0, flagged: false }))
const correlation = (values: (number | null)[]): CorrelationResult => ({
  input: { path: '/data/walks.csv', format: 'csv', layout: 'columns', series: 4, length: 100, bytes: 3000, load_ms: 2 },
  precision: 'f64',
  reference: 'serial',
  runs: [],
  constant: [],
  ranking,
  threshold: -3.5,
  top: 10,
  heatmap: { size: 4, block: 1, order: 'given', values, labels: names, series: [[0], [1], [2], [3]] },
  skipped: [],
})
// The example's r: 0.75…1, all red on −1…1.
const tight = [1, 0.8, 0.75, 0.9, 0.8, 1, 0.85, 0.95, 0.75, 0.85, 1, 0.8, 0.9, 0.95, 0.8, 1]
const data = (spec: ChartSpec | null) => (spec as Extract<ChartSpec, { kind: 'heatmap' }>).data

/** The chart drawn headless as the exporter draws it, at `width` × `height`. */
function drawnChart(spec: ChartSpec, width = 960, height = 600): chartjs.Chart {
  const config = chartConfig(spec, { animation: false, responsive: false })
  return new chartjs.Chart(createCanvas(width, height) as unknown as HTMLCanvasElement, { ...config, platform: chartjs.BasicPlatform } as never)
}

describe('the correlation heatmap\'s colour scale', () => {
  it('spans the data\'s range by default, sequentially, and says so; −1…1 when asked', () => {
    const d = data(heatmapChart(correlation(tight)))
    expect([d.min, d.max, d.scale]).toEqual([0.75, 1, 'sequential'])
    expect(d.note).toBe("colours: the data's range, r 0.750…1.000 (not −1…1)")
    const full = data(heatmapChart(correlation(tight), 'full'))
    expect([full.min, full.max, full.scale]).toEqual([-1, 1, 'diverging'])
    expect(full.note).toBe('colours: the full range of r, −1…1 (r of the cells 0.750…1.000)')
    // The chart shows the note under its title.
    const options = chartConfig(heatmapChart(correlation(tight))!).options as { plugins: { subtitle: { text: string } } }
    expect(options.plugins.subtitle.text).toBe(d.note)
    // Sequential colours run dark to light, unlike the diverging ones' light middle.
    expect(heatColor(0, 'sequential')).toBe('#440154')
    expect(heatColor(1, 'sequential')).toBe('#fde725')
  })

  it('keeps r = 0 in the light middle when the data span it', () => {
    const d = data(heatmapChart(correlation([1, -0.4, 0.2, 0.9, -0.4, 1, 0.1, 0.2, 0.2, 0.1, 1, 0.3, 0.9, 0.2, 0.3, 1])))
    expect([d.min, d.max, d.scale]).toEqual([-1, 1, 'diverging'])
    const half = data(heatmapChart(correlation([0.5, -0.4, 0.2, 0.3, -0.4, 0.5, 0.1, 0.2, 0.2, 0.1, 0.5, 0.3, 0.3, 0.2, 0.3, 0.5])))
    expect([half.min, half.max, half.scale]).toEqual([-0.5, 0.5, 'diverging'])
    expect(half.note).toContain('symmetric about r = 0')
  })
})

describe('heatmap charts', () => {
  it('count the cells beyond their scale in the note instead of clipping them silently', () => {
    const clipped: HeatmapChartData = { title: 't', size: 2, values: [0, 5, 300, null], labels: ['0', '1'], axisLabel: 'vertex', min: 0, max: 127, valueLabel: 'distance' }
    expect(cellsBeyondScale(clipped)).toBe(1)
    const options = chartConfig({ kind: 'heatmap', data: clipped }).options as { plugins: { subtitle: { text: string } } }
    expect(options.plugins.subtitle.text).toBe('1 cell beyond 0…127 drawn in the end colours')
  })

  it('keep square cells on a wide or a tall canvas, with the axes beside the square', () => {
    for (const [w, h] of [[960, 600], [500, 900]]) {
      const chart = drawnChart(heatmapChart(correlation(tight))!, w, h)
      const area = chart.chartArea
      expect(Math.abs(area.width - area.height), `${w} × ${h}`).toBeLessThan(1)
      const x = chart.scales.x
      const y = chart.scales.y
      expect(x.getPixelForValue(-0.5)).toBeCloseTo(area.left, 5)
      expect(x.getPixelForValue(3.5)).toBeCloseTo(area.right, 5)
      expect(y.getPixelForValue(-0.5)).toBeCloseTo(area.top, 5)
      expect(y.getPixelForValue(3.5)).toBeCloseTo(area.bottom, 5)
      expect(x.top).toBeCloseTo(area.bottom, 0)
      expect(y.right).toBeCloseTo(area.left, 0)
      chart.destroy()
    }
  })

  it('name the series on their axes, long names cut', () => {
    const chart = drawnChart(heatmapChart(correlation(tight))!)
    const shown = chart.scales.y.ticks.map((t) => t.label)
    expect(shown).toContain('walk_a')
    expect(shown).toContain('a_series_with…')
    expect(shown).not.toContain('0')
    chart.destroy()
  })
})

describe('heatmap ticks and labels', () => {
  it('tick round steps of cells, as many as the axis has room for, so labels never run together', () => {
    expect(tickStep(4, 600, 14)).toBe(1)
    expect(tickStep(200, 400, 0)).toBe(10)
    expect(tickStep(200, 600, 6)).toBe(20)
    expect(tickStep(16_384, 700, 14)).toBe(5000)
    // Five long names across a narrow plot: every other one.
    expect(tickStep(5, 400, 14)).toBe(2)
    const many = Array.from({ length: 200 }, (_, i) => `s${i}`)
    const big = heatmapChart({ ...correlation(tight), input: { ...correlation(tight).input, series: 200 }, ranking: many.map((name, index) => ({ name, index, meanR: 0.9, medianR: 0.9, z: 0, flagged: false })), heatmap: { size: 200, block: 1, order: 'given', values: Array.from({ length: 40_000 }, () => 0.5), labels: many, series: many.map((_, i) => [i]) } })!
    const chart = drawnChart(big)
    for (const axis of [chart.scales.x, chart.scales.y]) {
      const values = axis.ticks.map((t) => t.value)
      const step = values[1] - values[0]
      expect([1, 2, 5, 10, 20, 50]).toContain(step)
      expect(values.every((v) => v % step === 0)).toBe(true)
    }
    chart.destroy()
  })

  it('say a symmetric data range that reaches ±1 is −1…1, not "−1.000…1.000 (not −1…1)"', () => {
    const full = [1, -1, 0.2, 0.3, -1, 1, 0.1, 0.2, 0.2, 0.1, 1, 0.5, 0.3, 0.2, 0.5, 1]
    expect(data(heatmapChart(correlation(full))).note).toBe("colours: the data's range, −1…1")
  })

  it('draw the colour bar\'s name above it, clear of its top label', () => {
    const chart = drawnChart(heatmapChart(correlation(tight))!)
    // The name's baseline lies above the top label's top (half a tick line above the bar).
    expect(chart.chartArea.top).toBeGreaterThanOrEqual(4 + 10 + 11)
    chart.destroy()
  })
})

describe('a heatmap drawn for export', () => {
  it('paints its cells without an element each, the same picture as the dashboard\'s elements', () => {
    const spec = heatmapChart(correlation([1, -0.4, 0.2, 0.9, -0.4, 1, 0.1, 0.2, 0.2, 0.1, 1, 0.3, 0.9, 0.2, 0.3, 1]))!
    const draw = (interactive: boolean) => {
      const config = chartConfig(spec, { animation: false, responsive: false, interactive })
      const canvas = createCanvas(480, 300)
      const chart = new chartjs.Chart(canvas as unknown as HTMLCanvasElement, { ...config, platform: chartjs.BasicPlatform } as never)
      const elements = chart.getDatasetMeta(0).data.length
      const pixels = canvas.getContext('2d').getImageData(0, 0, 480, 300).data
      chart.destroy()
      return { elements, pixels }
    }
    const shown = draw(true)
    const painted = draw(false)
    expect(shown.elements).toBe(16)
    expect(painted.elements).toBe(0)
    let differ = 0
    for (let i = 0; i < shown.pixels.length; i += 4) if (Math.abs(shown.pixels[i] - painted.pixels[i]) + Math.abs(shown.pixels[i + 1] - painted.pixels[i + 1]) + Math.abs(shown.pixels[i + 2] - painted.pixels[i + 2]) > 24) differ++
    // The same picture, but for anti-aliasing along the cells' edges.
    expect(differ / (480 * 300)).toBeLessThan(0.01)
  })
})

describe('heatmap titles', () => {
  /** Each title and subtitle line as drawn, its width in the block's font, and the width the block gives it. */
  function titleLines(chart: chartjs.Chart) {
    const blocks = chart.boxes.filter((b) => 'text' in ((b as { options?: object }).options ?? {})) as unknown as { left: number; right: number; options: { text: string | string[]; font: object } }[]
    const ctx = chart.ctx
    return blocks.flatMap((b) => {
      ctx.font = toFont(b.options.font).string
      return ([] as string[]).concat(b.options.text).map((line) => ({ line, width: ctx.measureText(line).width, room: b.right - b.left }))
    })
  }

  it('are drawn at their font\'s width, never squeezed into the square plot\'s width, wrapped where the canvas is narrow', () => {
    const base = correlation(tight)
    const long: CorrelationResult = { ...base, input: { ...base.input, path: '/data/accelerometer_walks_of_the_study.npy', series: 4096 }, heatmap: { ...base.heatmap!, block: 1024 } }
    for (const [w, h] of [[960, 600], [640, 400], [360, 300]]) {
      const chart = drawnChart(heatmapChart(long)!, w, h)
      const lines = titleLines(chart)
      expect(lines.length, `${w} × ${h}`).toBeGreaterThanOrEqual(2)
      for (const l of lines) expect(l.width, `${w} × ${h}: "${l.line}" (${Math.round(l.width)} px) in ${Math.round(l.room)} px`).toBeLessThanOrEqual(l.room + 0.5)
      // The whole title is there, in order (a name wider than a line broken inside it).
      expect(lines.map((l) => l.line).join('').replace(/\s/g, '')).toContain('Pearsonr—accelerometer_walks_of_the_study.npy,4096series(meanof1024×1024blocks)')
      chart.destroy()
    }
  })

  it('five long series names across the x axis do not run together', () => {
    const five = ['walk_alpha_long', 'walk_bravo_long', 'walk_charlie_lo', 'walk_delta_long', 'walk_echo_longer']
    const c5: CorrelationResult = {
      ...correlation(tight),
      input: { ...correlation(tight).input, series: 5 },
      ranking: five.map((name, index) => ({ name, index, meanR: 0.9, medianR: 0.9, z: 0, flagged: false })),
      heatmap: { size: 5, block: 1, order: 'given', values: Array.from({ length: 25 }, () => 0.9), labels: five, series: five.map((_, i) => [i]) },
    }
    for (const [w, h] of [[960, 600], [480, 300]]) {
      const chart = drawnChart(heatmapChart(c5)!, w, h)
      const x = chart.scales.x
      chart.ctx.font = toFont((x.options as unknown as { ticks: { font: object } }).ticks.font).string
      const spans = x.ticks.map((t) => {
        const half = chart.ctx.measureText(String(t.label)).width / 2
        const at = x.getPixelForValue(t.value)
        return [at - half, at + half]
      })
      for (let i = 1; i < spans.length; i++) expect(spans[i][0], `${w} × ${h}: tick ${i}`).toBeGreaterThan(spans[i - 1][1])
      chart.destroy()
    }
  })
})

describe('a heatmap in a short card (a wide screen\'s grid of charts)', () => {
  // The distance heatmap of V = 8 000 as the dashboard shows it four to a row at 2560 px: its card about 540 × 338.
  const size = 250
  const spec: ChartSpec = {
    kind: 'heatmap',
    data: {
      title: 'Distances, least of 32 × 32 blocks (grey: no path) — g8000.1 (V = 8000)',
      size,
      values: Array.from({ length: size * size }, (_, i) => i % 599),
      labels: Array.from({ length: size }, (_, i) => String(i * 32)),
      axisLabel: 'vertex (blocks of 32, by first vertex)',
      min: 0,
      max: 598,
      valueLabel: 'distance',
      scale: 'sequential',
      note: "colours: each block's least distance, 0…598 (all distances 0…3624)",
    },
  }

  it.each([
    [540, 338],
    [960, 600],
  ])('at %i × %i: the colour bar\'s name lies below the note, and the axis titles within the plot\'s sides', (w, h) => {
    const chart = drawnChart(spec, w, h)
    const area = chart.chartArea
    // Where the title's and the note's text ends: their blocks' bottoms less the padding under them.
    const titles = chart.boxes.filter((b) => 'text' in ((b as { options?: object }).options ?? {})) as unknown as { bottom: number; options: { padding: Parameters<typeof toPadding>[0] } }[]
    const textEnd = Math.max(...titles.map((b) => b.bottom - toPadding(b.options.padding).bottom))
    // The name's top: its baseline 10 px above the bar, 11 px of text.
    expect(area.top - 10 - 11, `the name's top against the note's text, ending at ${textEnd}`).toBeGreaterThanOrEqual(textEnd)
    for (const [id, side] of [['x', area.width], ['y', area.height]] as const) {
      const title = (chart.scales[id].options as unknown as { title: { text: string | string[]; font: object } }).title
      chart.ctx.font = toFont(title.font).string
      const lines = ([] as string[]).concat(title.text)
      for (const line of lines) expect(chart.ctx.measureText(line).width, `${id}: "${line}" along ${Math.round(side)} px`).toBeLessThanOrEqual(side + 0.5)
      expect(lines.join(' ')).toBe('vertex (blocks of 32, by first vertex)')
    }
    chart.destroy()
  })
})

describe('the distance heatmap', () => {
  it('says its colours are each block\'s least distance, and the range of all distances', () => {
    const g = {
      path: '/data/c08.1', vertices: 512, minDistance: 0, maxDistance: 301,
      heatmap: { size: 2, cell: 256, min: [0, 127, 40, 0] },
      runs: [], histogram: { start: 0, width: 1, counts: [] },
    } as unknown as PathsGraphResult
    const d = data(pathsChartSpecs(g).heatmap)
    expect([d.min, d.max]).toEqual([0, 127])
    expect(d.note).toBe("colours: each block's least distance, 0…127 (all distances 0…301)")
    expect(d.ticks).toEqual(['0', '256'])
  })
})

describe('the heatmap in ranking order', () => {
  it('gives each flagged series a cell of its own among at most RANKING_CELLS a side, not a sliver of a block', () => {
    const m = 2000
    const matrix = new Float64Array(m * m).fill(0.9)
    const order = Array.from({ length: m }, (_, i) => (i + 7) % m)
    const h = heatmapOf(matrix, m, Array.from({ length: m }, (_, i) => `s${i}`), order, 'ranking', undefined, 3)
    expect(h.size).toBeLessThanOrEqual(RANKING_CELLS)
    expect(h.series.slice(0, 3)).toEqual([[7], [8], [9]])
    expect(h.labels.slice(0, 3)).toEqual(['s7', 's8', 's9'])
    expect(h.series[3].length).toBe(h.block)
    expect(h.series.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: m }, (_, i) => i))
    const spec = heatmapChart({ ...correlation(tight), input: { ...correlation(tight).input, series: m }, ranking: order.map((index) => ({ name: `s${index}`, index, meanR: 0.9, medianR: 0.9, z: 0, flagged: false })), heatmap: h })
    expect(data(spec).axisLabel).toBe(`series by ranking, flagged series one per cell, the others in blocks of ${h.block}`)
    expect(data(spec).ticks!.slice(0, 3)).toEqual(['s7', 's8', 's9'])
  })
})

describe('a heatmap in a half-width card (two charts a row at 1 280 px)', () => {
  // The correlation heatmap of 4 096 series in blocks, its title and note wrapping to two lines each.
  const size = 256
  const spec: ChartSpec = {
    kind: 'heatmap',
    data: {
      title: 'Pearson r — walks-4096.npy, 4096 series (mean of 16 × 16 blocks)',
      size,
      values: Array.from({ length: size * size }, (_, i) => (i % 200) / 100 - 1),
      labels: Array.from({ length: size }, (_, i) => `s${i * 16} … s${i * 16 + 15}`),
      ticks: Array.from({ length: size }, (_, i) => `s${i * 16}`),
      axisLabel: 'series as given, in blocks of 16',
      valueLabel: 'r',
      min: -1,
      max: 1,
      scale: 'diverging',
      note: "colours: the data's range of r, −0.998…1 (diverging, white at 0)",
    },
  }

  it('is drawn at its own, squarer, aspect ratio, so that its plot keeps half the card\'s width', () => {
    expect(aspectRatioOf('heatmap')).toBeLessThan(aspectRatioOf('series'))
    for (const w of [480, 540]) {
      const chart = drawnChart(spec, w, Math.round(w / aspectRatioOf('heatmap')))
      expect(chart.chartArea.width, `${w} px wide`).toBeGreaterThanOrEqual(w / 2)
      chart.destroy()
    }
  })
})
