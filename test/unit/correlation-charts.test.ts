// The correlation workload's charts: which ones its results make, the two chart kinds it added
// (heatmap: chartjs-chart-matrix; grouped bars) as Chart.js configurations, and both drawn headless.
import { describe, expect, it } from 'vitest'
import { chartConfig } from '../../src/shared/charts'
import { EMPTY_CELL_COLOR, heatColor } from '../../src/shared/charts/heatmap'
import type { ChartSpec } from '../../src/shared/charts/spec'
import { correlationCharts, heatmapChart, histogramChart, rankingChart } from '../../src/shared/workloads/correlation/charts'
import { noteOf } from '../../src/shared/workloads/tables'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import { correlationTables } from '../../src/shared/workloads/correlation/tables'
import { renderChart } from '../../src/main/charts/render'

const spread = (median: number) => ({ median, min: median, max: median })

const result: CorrelationResult = {
  input: { path: '/data/walks.csv', format: 'csv', layout: 'columns', series: 3, length: 100, bytes: 3000, load_ms: 2 },
  precision: 'f64',
  reference: 'serial',
  runs: [
    { backend: 'serial', arithmetic: 'f64', threads: 1, stages: { means: spread(1), squares: spread(2), cross: spread(3), coefficients: spread(0.5) }, total: spread(6.5), max_abs_dr: 0 },
    {
      backend: 'gpu',
      arithmetic: 'f32-compensated',
      stages: { means: spread(0.1), squares: spread(0.2), cross: spread(0.3), coefficients: spread(0.1) },
      total: spread(0.7),
      upload_ms: 1,
      download_ms: 0.2,
      max_abs_dr: 1e-7,
      variants: [{ stage: 'cross', variant: 'register', ms: spread(0.3), flop: 6e6, bytes: 1e5, deviation: 1e-7 }],
    },
  ],
  constant: [],
  ranking: [
    { name: 'b', index: 1, meanR: 0.1, medianR: 0.1, z: -9, flagged: true },
    { name: 'a', index: 0, meanR: 0.9, medianR: 0.9, z: 0, flagged: false },
    { name: 'c', index: 2, meanR: 0.9, medianR: 0.9, z: 0.5, flagged: false },
  ],
  threshold: -3.5,
  top: 10,
  heatmap: { size: 3, block: 1, order: 'given', values: [1, 0.1, 0.9, 0.1, 1, null, 0.9, null, 1], labels: ['a', 'b', 'c'], series: [[0], [1], [2]] },
  histogram: { edges: [-1, 0, 1], counts: [0, 3] },
  skipped: [],
}

describe('correlation charts', () => {
  const charts = correlationCharts(result)
  const byName = (name: string) => charts.find((c) => c.name === name)!.spec

  it('are the heatmap, histogram, ranking, stages and GPU kernels of the results (pair and sweep only when made)', () => {
    expect(charts.map((c) => [c.name, c.spec.kind])).toEqual([
      ['heatmap', 'heatmap'],
      ['histogram', 'grouped-bars'],
      ['ranking', 'grouped-bars'],
      ['stages', 'grouped-bars'],
      ['variants', 'grouped-bars'],
      ['roofline', 'roofline'],
    ])
    expect(correlationTables(result).map((t) => t.name)).toEqual(['runs', 'kernels', 'ranking', 'histogram'])
  })

  it('place each timed GPU kernel on a roofline from its counted FLOPs and bytes, named with its adapter when known', () => {
    // 6e6 FLOP and 1e5 bytes in 0.3 ms: 60 FLOP/byte at 20 GFLOP/s.
    const kernels = [{ name: 'gpu cross register (f32-compensated)', intensity: 60, performance: 20 }]
    expect(byName('roofline')).toEqual({ kind: 'roofline', data: { adapter: 'GPU kernels', kernels } })
    const envelope = { device: { adapter: 'nvidia h100' } } as never
    expect(correlationCharts(result, envelope).find((c) => c.name === 'roofline')!.spec).toMatchObject({ data: { adapter: 'nvidia h100', kernels } })
    // CPU runs only: no kernels, no roofline.
    expect(correlationCharts({ ...result, runs: [result.runs[0]] }).map((c) => c.name)).not.toContain('roofline')
  })

  it('draw the heatmap over −1…1 as a matrix of cells coloured from −1 (blue) through 0 (light) to 1 (red), empty cells grey', () => {
    const config = chartConfig(heatmapChart(result, 'full')!) as unknown as { type: string; data: { datasets: { data: unknown[]; backgroundColor: (ctx: { raw: unknown }) => string }[] } }
    expect(config.type).toBe('matrix')
    const [cells] = config.data.datasets
    expect(cells.data).toHaveLength(9)
    expect(cells.data[5]).toEqual({ x: 2, y: 1, v: null })
    expect(cells.backgroundColor({ raw: cells.data[0] })).toBe(heatColor(1))
    expect(cells.backgroundColor({ raw: cells.data[5] })).toBe(EMPTY_CELL_COLOR)
    expect(heatColor(0)).toBe('#2166ac')
    expect(heatColor(0.5)).toBe('#f7f7f7')
    expect(heatColor(1)).toBe('#b2182b')
  })

  it('stack the stages per backend and draw the ranking\'s threshold', () => {
    const stages = chartConfig(byName('stages')) as unknown as { type: string; data: { labels: string[]; datasets: { label: string; data: number[] }[] }; options: { scales: { y: { stacked: boolean } } } }
    expect(stages.type).toBe('bar')
    expect(stages.data.labels).toEqual(['serial', 'gpu (compensated f32)'])
    expect(stages.data.datasets.map((d) => [d.label, d.data])).toEqual([
      ['means', [1, 0.1]],
      ['squares', [2, 0.2]],
      ['cross', [3, 0.3]],
      ['coefficients', [0.5, 0.1]],
    ])
    expect(stages.options.scales.y.stacked).toBe(true)
    // The stack is the stages' own medians, the table's total the median of whole runs: said under the title.
    expect((byName('stages').data as { note?: string }).note).toMatch(/the stack and the total differ/)
    const ranking = byName('ranking') as Extract<ChartSpec, { kind: 'grouped-bars' }>
    expect(ranking.data.categories).toEqual(['b', 'a', 'c'])
    expect(ranking.data.lines).toEqual([{ label: 'threshold −3.50', value: -3.5 }])
  })

  it('overlay a pair of series of different levels standardized, so that how they move together shows', () => {
    // Pressure near 1003 hPa and temperature near 20 °C, moving against each other.
    const x = Array.from({ length: 50 }, (_, i) => i)
    const pressure = x.map((i) => 1003 + Math.sin(i / 5))
    const temperature = x.map((i) => 20 - 0.5 * Math.sin(i / 5))
    const [chart] = correlationCharts({ ...result, pair: { names: ['pressure', 'temperature'], indices: [0, 1], r: -1, x, values: [pressure, temperature], step: 1 } }).filter((c) => c.name === 'pair')
    if (chart.spec.kind !== 'series') throw new Error('series expected')
    const { data } = chart.spec
    expect(data.yLabel).toBe('standardized value (σ from the mean)')
    expect(data.note).toMatch(/^each series standardized, \(x − mean\) \/ σ over the points drawn — pressure: mean 1,003, σ 0\.\d+; temperature: mean 19\.9\d*, σ 0\.\d+$/)
    for (const s of data.series) {
      const v = s.values as number[]
      const mean = v.reduce((a, b) => a + b, 0) / v.length
      expect(Math.abs(mean)).toBeLessThan(1e-9)
      expect(Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length)).toBeCloseTo(1, 9)
    }
    // Standardized, the two are mirror images on one axis.
    data.series[0].values.forEach((v, i) => expect(v! + data.series[1].values[i]!).toBeCloseTo(0, 9))
  })

  it('refuse data that does not fit, naming the chart', () => {
    const broken: ChartSpec = { kind: 'heatmap', data: { ...(byName('heatmap').data as object), values: [1, 2] } as never }
    expect(() => chartConfig(broken)).toThrow('heatmap "Pearson r — walks.csv, 3 series": 2 values for 3 × 3 cells')
  })

  it('render headless as PNG and editable SVG', async () => {
    for (const name of ['heatmap', 'ranking']) {
      const svg = new TextDecoder().decode(await renderChart(byName(name), 'svg'))
      // With no height given, a heatmap takes its squarer frame, the other charts the common one.
      expect(svg).toMatch(name === 'heatmap' ? /<svg[^>]*viewBox="0 0 960 835"/ : /<svg[^>]*viewBox="0 0 960 600"/)
      expect(svg).toContain(name === 'heatmap' ? 'Pearson r' : 'threshold')
      const png = await renderChart(byName(name), 'png', { width: 400, height: 250, pixelRatio: 1 })
      expect(Array.from(png.subarray(1, 4))).toEqual([0x50, 0x4e, 0x47])
    }
  })
})

describe('the histogram of r', () => {
  const bars = (counts: number[]) => {
    const spec = histogramChart({ ...result, histogram: { edges: counts.map((_, i) => -1 + (2 * i) / counts.length).concat(1), counts } })!
    if (spec.kind !== 'grouped-bars') throw new Error(spec.kind)
    return spec.data
  }

  it('counts on a log axis when one bin holds ten times the next or more, and says so', () => {
    // A tight cluster of 16 384 series: nearly every pair in one bin, the anomalies' pairs far below.
    const tight = bars([0, 120, 3400, 18_000, 1_200_000, 0, 134_000_000])
    expect(tight.logY).toBe(true)
    expect(tight.yLabel).toBe('pairs (log scale)')
    expect(tight.note).toBe('count axis logarithmic: the largest bin holds 112× the next largest')
    expect(chartConfig({ kind: 'grouped-bars', data: tight }).options!.scales!.y!.type).toBe('logarithmic')
  })

  it('keeps a linear axis where no bin dwarfs the rest', () => {
    for (const counts of [[5, 40, 90, 40, 5], [0, 3], [0, 0, 0]]) {
      const data = bars(counts)
      expect(data.logY, String(counts)).toBeUndefined()
      expect(data.yLabel).toBe('pairs')
    }
    expect(bars([1, 9, 90]).logY).toBe(true)
  })
})

describe('the anomaly flags', () => {
  it('state their rule and both parameters in the ranking table\'s note and the ranking chart', () => {
    const r: CorrelationResult = { ...result, gap: 1.5 }
    const note = noteOf(correlationTables(r), 'ranking')
    expect(note).toContain("flagged: z < -3.5, apart from the cluster's tail by a gap of ×1.5 (walking out from the centre, the first series below -3.5 whose z is at least 1.5 times")
    expect(note).toContain('is not flagged): 1 flagged.')
    const chart = rankingChart(r)!
    if (chart.kind !== 'grouped-bars') throw new Error(chart.kind)
    expect(chart.data.note).toBe("1 flagged (z < -3.5, apart from the cluster's tail by a gap of ×1.5)")
    // A result from before the gap: every series below the threshold was flagged, and it says so.
    expect(noteOf(correlationTables(result), 'ranking')).toContain('flagged: z < -3.5: 1 flagged.')
  })
})

