// A block range of a large correlation matrix at full resolution (--zoom, the dashboard's Zoom):
// each cell one pair's r as the formula gives it, from the kept series without the whole matrix;
// beyond the chart's cells blocks again, with their mean, least and greatest; the chart names the
// range and what its cells are, draws off-diagonal ranges with their own column names, and exports.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCanvas } from '@napi-rs/canvas'
import * as chartjs from 'chart.js'
import { MatrixController, MatrixElement } from 'chartjs-chart-matrix'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chartConfig } from '../../src/shared/charts'
import type { HeatmapChartData } from '../../src/shared/charts/spec'
import { type CorrelationParams, correlationWorkload } from '../../src/shared/workloads/correlation'
import { zoomChart } from '../../src/shared/workloads/correlation/charts'
import { validateParams } from '../../src/shared/workloads/schema'
import { runCorrelationJob } from '../../src/main/workloads/correlation/run-correlation'
import { indexNames, seriesMatrix } from '../../src/main/workloads/correlation/series-matrix'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import { ZOOM_MAX_SERIES, parseZoom, zoomHeatmap } from '../../src/main/workloads/correlation/zoom'
import { edgeSeries, pearson } from '../helpers/correlation-reference'
import { jobContext } from '../helpers/job-context'

chartjs.Chart.register(...chartjs.registerables, MatrixController, MatrixElement)

const m = 600
const n = 64
const values = edgeSeries(m, n, 11, { constant: true, offset: 10 })
const series = seriesMatrix(indexNames(m), values, m, n)
const row = (i: number) => values.subarray(i * n, (i + 1) * n)

describe('a zoomed block range', () => {
  it('is every pair\'s r up to the chart\'s cells, rows and columns apart', () => {
    const z = zoomHeatmap(series, [10, 29], [300, 319])
    expect([z.block, z.rowLabels.length, z.colLabels.length]).toEqual([1, 20, 20])
    expect([z.rowLabels[0], z.colLabels[19]]).toEqual(['s10', 's319'])
    for (const [i, j] of [[0, 0], [3, 17], [19, 19]]) {
      const want = pearson(row(10 + i), row(300 + j))
      const got = z.values[i * 20 + j]
      if (Number.isNaN(want)) expect(got).toBeNull()
      else expect(got).toBeCloseTo(want, 4)
    }
    expect(z.min).toBeUndefined()
  })

  it('beyond the chart\'s cells: blocks as fine as it shows, with their mean, least and greatest r', () => {
    const z = zoomHeatmap(series, [0, 99], [0, 99], 40)
    expect([z.block, z.rowLabels.length]).toEqual([3, 34])
    expect(z.rowLabels[0]).toBe('s0 … s2 (3)')
    const rs = [0, 1, 2].flatMap((i) => [3, 4, 5].map((j) => pearson(row(i), row(j)))).filter((r) => !Number.isNaN(r))
    expect(z.values[1]).toBeCloseTo(rs.reduce((a, b) => a + b, 0) / rs.length, 4)
    expect(z.min![1]).toBeCloseTo(Math.min(...rs), 4)
    expect(z.max![1]).toBeCloseTo(Math.max(...rs), 4)
  })

  it('is asked for as FIRST:LAST[,FIRST:LAST], within the series and the limit', () => {
    expect(parseZoom('0:255', 1000)).toEqual({ rows: [0, 255], cols: [0, 255] })
    expect(parseZoom('0:9, 500:509', 1000)).toEqual({ rows: [0, 9], cols: [500, 509] })
    for (const [text, series, message] of [
      ['0-9', 1000, 'give series positions FIRST:LAST'],
      ['5:4', 1000, 'first ≤ last'],
      ['0:1000', 1000, 'positions run from 0 to 999'],
      ['0:9,0:19', 1000, 'span as many series (10 and 20)'],
      [`0:${ZOOM_MAX_SERIES}`, 16_384, `at most ${ZOOM_MAX_SERIES} series a side`],
    ] as const)
      expect(() => parseZoom(text, series)).toThrow(message)
  })

  it('is drawn as a chart naming its range and its cells, columns named apart from rows, exported headless', () => {
    const z = zoomHeatmap(series, [10, 29], [300, 319])
    const r = { input: { path: '/d/w.npy', series: m }, ranking: [], zoom: z } as never
    const spec = zoomChart(r)!
    const data = spec.data as HeatmapChartData
    expect(data.title).toBe('Pearson r — w.npy, series 10–29 × 300–319, full resolution')
    expect(data.columnLabels![0]).toBe('s300')
    const chart = new chartjs.Chart(createCanvas(960, 600) as unknown as HTMLCanvasElement, { ...chartConfig(spec, { animation: false, responsive: false }), platform: chartjs.BasicPlatform } as never)
    const x = chart.scales.x as unknown as { ticks: { label: string }[] }
    expect(x.ticks.map((t) => t.label).filter(Boolean)[0]).toBe('s300')
    chart.destroy()
    const blocked = zoomHeatmap(series, [0, 99], [0, 99], 40)
    const title = (aggregate: 'mean' | 'min' | 'max') => (zoomChart({ input: { path: 'w.npy' }, zoom: blocked } as never, 'data', aggregate)!.data as HeatmapChartData).title
    expect(title('max')).toContain('(maximum of 3 × 3 blocks)')
  })
})

describe('the zoom job', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralab-zoom-'))
  const file = join(dir, 'w.npy')
  beforeAll(async () => {
    const w = generateWalks({ series: 300, length: 50, start: 10, eps: 0.01, seed: 4, anomalies: 1 })
    await writeSeries(file, w.values, 300, 50, { layout: 'rows' })
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const ctx = jobContext()
  const params = (p: Record<string, unknown>) => validateParams('correlation', correlationWorkload.params, { files: [file], layout: 'rows', repeat: 1, ...p }) as CorrelationParams

  it('answers after the run from the kept series, the range alone, no matrix computed', async () => {
    const full = await runCorrelationJob(params({ backends: ['serial'] }), ctx)
    expect(full.results.heatmap!.block).toBe(2)
    const zoomed = await runCorrelationJob(params({ zoom: '0:99,200:299' }), ctx)
    expect(zoomed.results.runs).toEqual([])
    expect(zoomed.results.heatmap).toBeUndefined()
    expect([zoomed.results.zoom!.block, zoomed.results.zoom!.rowLabels.length]).toEqual([1, 100])
    await expect(runCorrelationJob(params({ zoom: '0:300' }), ctx)).rejects.toThrow('positions run from 0 to 299')
  })
})
