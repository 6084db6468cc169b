import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCanvas, loadImage } from '@napi-rs/canvas'
import type { ChartDataset } from 'chart.js'
import { ApiError } from '../../src/shared/errors'
import { chartConfig, chartTitle, formatNumber, ridgePoint, rooflineFromBench } from '../../src/shared/charts'
import type { ChartSpec, RoofData, SeriesChartData } from '../../src/shared/charts/spec'
import { PALETTE } from '../../src/shared/charts/theme'
import { writeFileAtomic } from '../../src/main/io/atomic-write'
import { DEFAULT_CHART_SIZE, renderChart } from '../../src/main/charts/render'
import { backendsOf, columnsOf, statsChartSpecs, statsCharts } from '../../src/shared/workloads/stats/charts'
import { statsWorkload } from '../../src/shared/workloads/stats'
import type { StatsFileResult } from '../../src/shared/workloads/stats/types'
import { statsFile } from '../renderer/stats-fixture'

const roofData: RoofData = {
  adapter: 'Test Adapter 9000',
  peak_GFLOP_per_s: 24_000,
  bandwidth_GB_per_s: 2_700,
  kernels: [
    { name: 'vec4 sum', intensity: 0.25, performance: 600 },
    { name: 'SGEMM', intensity: 32, performance: 20_000 },
  ],
}
const roofline: ChartSpec = { kind: 'roofline', data: roofData }

const rows = [1000, 2000, 4000, 8000, 16000]
const timeData: SeriesChartData = {
  title: 'Time vs prefix size',
  xLabel: 'rows',
  yLabel: 'time (ms)',
  logY: true,
  x: rows,
  series: [
    { label: 'serial', values: rows.map((n) => n * 0.01) },
    { label: 'multithreaded', values: rows.map((n) => n * 0.003) },
    { label: 'GPU', values: [null, 0.9, 1.1, 1.6, 2.5] },
  ],
}
const cvData: SeriesChartData = {
  title: 'Coefficient of variation vs prefix size',
  xLabel: 'rows',
  yLabel: 'coefficient of variation',
  x: rows,
  series: [
    { label: 'acc_x', values: [0.9, 0.85, 0.83, 0.82, 0.82] },
    { label: 'acc_y', values: [-1.3, -1.2, -1.25, -1.21, -1.22] },
  ],
}

type XY = { x: number; y: number }
const points = (ds: ChartDataset<'line'>) => ds.data as XY[]

describe('chart configurations', () => {
  it('draws the roof as min(peak, bandwidth × intensity) with the ridge point exactly on it', () => {
    const cfg = chartConfig(roofline)
    const [roof, ridge, ...kernels] = cfg.data.datasets
    const ridgeX = roofData.peak_GFLOP_per_s / roofData.bandwidth_GB_per_s
    expect(ridgePoint(roofData)).toBe(ridgeX)
    expect(points(roof).some((p) => p.x === ridgeX && p.y === roofData.peak_GFLOP_per_s)).toBe(true)
    expect(points(ridge)).toEqual([{ x: ridgeX, y: roofData.peak_GFLOP_per_s }])
    for (const p of points(roof)) {
      const expected = p.x < ridgeX ? roofData.bandwidth_GB_per_s * p.x : roofData.peak_GFLOP_per_s
      expect(p.y).toBeCloseTo(expected, 9)
    }
    // Below the ridge the roof is memory bound, above it compute bound.
    const at = (x: number) => points(roof).find((p) => Math.abs(p.x / x - 1) < 1e-12)?.y
    expect(at(0.1)).toBeCloseTo(270, 9)
    expect(at(1)).toBeCloseTo(2700, 9)
    expect(at(100)).toBe(24_000)
    // Log-uniform samples, increasing, spanning the axis.
    const xs = points(roof).map((p) => p.x)
    expect(xs).toEqual([...xs].sort((a, b) => a - b))
    expect(xs[0]).toBe(cfg.options?.scales?.x?.min)
    expect(xs[xs.length - 1]).toBe(cfg.options?.scales?.x?.max)
    expect(xs.length).toBeGreaterThan(20)

    expect(kernels.map((k) => points(k))).toEqual([[{ x: 0.25, y: 600 }], [{ x: 32, y: 20_000 }]])
    expect(kernels[0].label).toContain('vec4 sum')
    expect(kernels[0].borderColor).not.toBe(kernels[1].borderColor)
  })

  it('gives the roofline log-log axes with units, a range holding every kernel, and a title naming the adapter', () => {
    const { options } = chartConfig(roofline)
    const { x, y } = options!.scales! as Record<string, { type: string; min: number; max: number; title: { text: string } }>
    expect([x.type, y.type]).toEqual(['logarithmic', 'logarithmic'])
    expect(x.title.text).toBe('arithmetic intensity (FLOP/byte)')
    expect(y.title.text).toBe('performance (GFLOP/s)')
    expect(x.min).toBeLessThanOrEqual(0.25 / 2)
    expect(x.max).toBeGreaterThanOrEqual(64)
    expect(y.max).toBeGreaterThan(24_000)
    expect(y.min).toBeLessThan(600)
    expect(options?.plugins?.title?.text).toBe('Roofline — Test Adapter 9000')
    expect(chartTitle(roofline)).toBe('Roofline — Test Adapter 9000')
  })

  it('builds the roofline from a device benchmark', () => {
    const data = rooflineFromBench({
      adapter: { vendor: 'v', architecture: 'a', device: 'd', description: 'SwiftShader Device', isSoftware: true, source: 's' },
      read_bandwidth_GB_per_s: 12.5,
      read_bytes: 1,
      fma_f32_GFLOP_per_s: 50,
      fma_flops: 1,
      upload_GB_per_s: 1,
      readback_GB_per_s: 1,
      transfer_bytes: 1,
      timing: 'wall clock to completion',
      repeats: 3,
    })
    expect(data).toEqual({ adapter: 'SwiftShader Device', peak_GFLOP_per_s: 50, bandwidth_GB_per_s: 12.5 })
    expect(ridgePoint(data)).toBe(4)
  })

  it("draws the CPU's roof beside the GPU's, each labelled, and gives each point its share of its own hardware's roof", () => {
    const cpu = { cpu: 'Test CPU', peak_GFLOP_per_s: 50, bandwidth_GB_per_s: 20, kernels: [{ name: 'corr simd', intensity: 5, performance: 25 }] }
    const spec: ChartSpec = { kind: 'roofline', data: { ...roofData, cpu } }
    const cfg = chartConfig(spec)
    const labels = cfg.data.datasets.map((d) => d.label)
    expect(labels).toEqual([
      'GPU roof: 2,700 GB/s, 24,000 GFLOP/s',
      'GPU ridge point: 8.89 FLOP/byte',
      'CPU roof: 20 GB/s, 50 GFLOP/s',
      'CPU ridge point: 2.5 FLOP/byte',
      'vec4 sum (89% of GPU roof)',
      'SGEMM (83% of GPU roof)',
      // min(50, 20 × 5) = 50: half the CPU's roof, though a sliver of the GPU's.
      'corr simd (50% of CPU roof)',
    ])
    const cpuRoof = points(cfg.data.datasets[2])
    expect(cfg.data.datasets[2].borderDash).toEqual([8, 4])
    expect(cfg.data.datasets[0].borderDash).toEqual([])
    for (const p of cpuRoof) expect(p.y).toBeCloseTo(Math.min(50, 20 * p.x), 9)
    expect(cpuRoof.some((p) => p.x === 2.5 && p.y === 50)).toBe(true)
    // Both roofs on one x range: the GPU's ridge at 8.9 and the CPU's at 2.5, each with two decades either side.
    expect(points(cfg.data.datasets[0]).map((p) => p.x)).toEqual(expect.arrayContaining([cpuRoof[0].x, cpuRoof.at(-1)!.x]))
    expect(cfg.options?.scales?.y?.min).toBeLessThanOrEqual(Math.min(20 * cpuRoof[0].x, 2_700 * cpuRoof[0].x))
    expect(chartTitle(spec)).toBe('Roofline — Test Adapter 9000 and Test CPU')
  })

  it("draws the CPU's roof alone on a machine without a GPU", () => {
    const spec: ChartSpec = { kind: 'roofline', data: { adapter: '', cpu: { cpu: 'Test CPU', peak_GFLOP_per_s: 50, bandwidth_GB_per_s: 20 } } }
    expect(chartConfig(spec).data.datasets.map((d) => d.label)).toEqual(['CPU roof: 20 GB/s, 50 GFLOP/s', 'CPU ridge point: 2.5 FLOP/byte'])
    expect(chartTitle(spec)).toBe('Roofline — Test CPU')
    expect(() => chartConfig({ kind: 'roofline', data: { adapter: '', cpu: { cpu: 'Test CPU', peak_GFLOP_per_s: 0, bandwidth_GB_per_s: 20 } } })).toThrow(/Test CPU.*got 0 GFLOP\/s/)
  })

  it('rejects a roofline that cannot sit on log axes, naming the value', () => {
    expect(() => chartConfig({ kind: 'roofline', data: { ...roofData, bandwidth_GB_per_s: 0 } })).toThrow(/bandwidth.*got 0/)
    const bad = { ...roofData, kernels: [{ name: 'broken', intensity: -1, performance: 5 }] }
    try {
      chartConfig({ kind: 'roofline', data: bad })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError)
      expect((e as ApiError).code).toBe('invalid-argument')
      expect((e as ApiError).message).toContain('"broken"')
    }
  })

  it('draws a series chart with logY on a log axis, one line per backend, gaps where a backend did not run', () => {
    const spec: ChartSpec = { kind: 'series', data: timeData }
    const cfg = chartConfig(spec)
    const { x, y } = cfg.options!.scales! as Record<string, { type: string; min?: number; max?: number; title: { text: string } }>
    expect(x.title.text).toBe('rows')
    expect(y.title.text).toBe('time (ms)')
    expect(x.type).toBe('linear')
    expect(y.type).toBe('logarithmic')
    // Whole decades around 0.9 … 160 ms.
    expect([y.min, y.max]).toEqual([0.1, 1000])
    expect(cfg.data.datasets.map((d) => d.label)).toEqual(['serial', 'multithreaded', 'GPU'])
    expect(points(cfg.data.datasets[0])).toEqual(rows.map((n) => ({ x: n, y: n * 0.01 })))
    expect(Number.isNaN(points(cfg.data.datasets[2])[0].y)).toBe(true)
    expect(points(cfg.data.datasets[2])[1]).toEqual({ x: 2000, y: 0.9 })
    expect(cfg.data.datasets.map((d) => d.borderColor)).toEqual(PALETTE.slice(0, 3))
    expect(chartTitle(spec)).toBe('Time vs prefix size')
    expect(cfg.options?.plugins?.title?.text).toBe('Time vs prefix size')

    // The caller's choice overrides the chart's, both ways.
    const linear = chartConfig(spec, { logY: false }).options!.scales!.y!
    expect(linear.type).toBe('linear')
    const { logY: _, ...withoutLog } = timeData
    expect(chartConfig({ kind: 'series', data: withoutLog }).options!.scales!.y!.type).toBe('linear')
    expect(chartConfig({ kind: 'series', data: withoutLog }, { logY: true }).options!.scales!.y!.type).toBe('logarithmic')
  })

  it('puts x on a log axis, over whole decades, only when asked', () => {
    const x = [100, 1000, 10_000, 50_000]
    const data: SeriesChartData = { title: 't', xLabel: 'rows', yLabel: 'v', x, series: [{ label: 'a', values: [1, 2, 3, 4] }] }
    expect(chartConfig({ kind: 'series', data }).options!.scales!.x!.type).toBe('linear')
    const logged = chartConfig({ kind: 'series', data: { ...data, logX: true } }).options!.scales! as Record<string, { type: string; min?: number; max?: number }>
    expect(logged.x.type).toBe('logarithmic')
    expect([logged.x.min, logged.x.max]).toEqual([100, 50_000])
  })

  it('draws series on linear axes by default and leaves non-positive values out only on a log axis', () => {
    const cv = chartConfig({ kind: 'series', data: cvData })
    expect(cv.options!.scales!.y!.type).toBe('linear')
    expect((cv.options!.scales!.y!.title as { text: string }).text).toBe('coefficient of variation')
    expect(points(cv.data.datasets[1]).map((p) => p.y)).toEqual([-1.3, -1.2, -1.25, -1.21, -1.22])
    const logged = chartConfig({ kind: 'series', data: cvData }, { logY: true })
    expect(points(logged.data.datasets[1]).every((p) => Number.isNaN(p.y))).toBe(true)
    expect(points(logged.data.datasets[0]).map((p) => p.y)).toEqual([0.9, 0.85, 0.83, 0.82, 0.82])

    const mad = chartConfig({ kind: 'series', data: { ...cvData, title: 'MAD — ACC_001.csv', yLabel: 'median absolute deviation' } })
    expect((mad.options!.scales!.y!.title as { text: string }).text).toBe('median absolute deviation')
    expect(mad.options?.plugins?.title?.text).toBe('MAD — ACC_001.csv')
    expect(chartTitle({ kind: 'series', data: cvData })).toBe('Coefficient of variation vs prefix size')
  })

  it('rejects a series whose length does not match x, or an x that is not a number, naming the chart and the series', () => {
    const data: SeriesChartData = { title: 'MAD', xLabel: 'rows', yLabel: 'mad', x: rows, series: [{ label: 'acc_z', values: [1, 2] }] }
    expect(() => chartConfig({ kind: 'series', data })).toThrow('chart "MAD": series "acc_z" has 2 values for 5 x values')
    const badX = { ...cvData, x: [1, NaN, 3, 4, 5] }
    expect(() => chartConfig({ kind: 'series', data: badX })).toThrow(ApiError)
    expect(() => chartConfig({ kind: 'series', data: badX })).toThrow(/x\[1\] is NaN/)
  })

  it('is deterministic and takes the headless settings', () => {
    const a = chartConfig({ kind: 'series', data: timeData }, { animation: false, responsive: false })
    const b = chartConfig({ kind: 'series', data: timeData }, { animation: false, responsive: false })
    expect(a.data).toEqual(b.data)
    expect(a.options?.animation).toBe(false)
    expect(a.options?.responsive).toBe(false)
    const screen = chartConfig({ kind: 'series', data: timeData })
    expect(screen.options?.responsive).toBe(true)
    expect(screen.options?.animation).toBeUndefined()
    expect(screen.options?.maintainAspectRatio).toBe(true)
  })

  it('formats numbers compactly and independently of the locale', () => {
    expect(formatNumber(24_000)).toBe('24,000')
    expect(formatNumber(0.25)).toBe('0.25')
    expect(formatNumber(8.888888)).toBe('8.89')
    expect(formatNumber(-0.5)).toBe('−0.5')
    expect(formatNumber(20_000_000, 6)).toBe('20,000,000')
    expect(formatNumber(1e-5)).toBe('10⁻⁵')
    expect(formatNumber(2.5e12)).toBe('2.5×10¹²')
    expect(formatNumber(0)).toBe('0')
  })
})

describe('statistics charts', () => {
  const data = { acc_x: [1, 3, 2, 8, 5, 4], acc_y: [10, 12, 11, 9, 13, 10] }
  /** Two backends, the GPU missing at the first prefix. */
  function twoBackends(path = '/data/ACC_001.csv'): StatsFileResult {
    const file = statsFile(path, data, ['serial', 'gpu'], [2, 4, 6])
    delete file.batches[0].backends.gpu
    return file
  }

  it('draws time (log y), CV and MAD (linear) against the prefix sizes, titled with the file name', () => {
    const file = twoBackends()
    const { time, cv, mad } = statsChartSpecs(file)
    for (const spec of [time, cv, mad]) {
      expect(spec.kind).toBe('series')
      if (spec.kind !== 'series') continue
      expect(spec.data.x).toEqual([2, 4, 6])
      expect(spec.data.xLabel).toBe('prefix size (rows)')
      expect(spec.data.title).toMatch(/ — ACC_001\.csv$/)
    }
    if (time.kind !== 'series' || cv.kind !== 'series' || mad.kind !== 'series') return
    expect(time.data).toMatchObject({ title: 'Time vs prefix size — ACC_001.csv', yLabel: 'time (ms)', logY: true })
    expect(cv.data).toMatchObject({ title: 'Coefficient of variation vs prefix size — ACC_001.csv', yLabel: 'coefficient of variation (std / mean, no unit)', logY: false })
    expect(mad.data).toMatchObject({ title: 'Median absolute deviation vs prefix size — ACC_001.csv', yLabel: 'median absolute deviation (unit of the data)', logY: false })

    // One line per backend, a gap where the GPU did not run.
    expect(time.data.series).toEqual([
      { label: 'serial', values: file.batches.map((b) => b.backends.serial.compute_ms) },
      { label: 'gpu', values: [null, file.batches[1].backends.gpu.compute_ms, file.batches[2].backends.gpu.compute_ms] },
    ])
    // Per column and backend when several backends ran.
    expect(cv.data.series.map((s) => s.label)).toEqual(['acc_x · serial', 'acc_x · gpu', 'acc_y · serial', 'acc_y · gpu'])
    expect(cv.data.series[0].values).toEqual(file.batches.map((b) => b.backends.serial.columns.acc_x.cv))
    expect(mad.data.series[3].values).toEqual([null, file.batches[1].backends.gpu.columns.acc_y.mad, file.batches[2].backends.gpu.columns.acc_y.mad])

    // The dashboard draws them: time on a log axis, CV on a linear one.
    expect(chartConfig(time).options!.scales!.y!.type).toBe('logarithmic')
    expect(chartConfig(cv).options!.scales!.y!.type).toBe('linear')
  })

  it('marks a CV of a column with its mean ≈ 0 undefined in practice and keeps it from setting the scale', () => {
    // As seen: acc_z across gravity, mean ≈ 0 against its spread (CV in the hundreds).
    const z = [1.2, -1.1, 0.9, -1.0, 1.05, -1.03]
    const file = statsFile('/data/ACC_002.csv', { ...data, acc_z: z }, ['serial', 'simd'], [6])
    expect(Math.abs(file.columns.acc_z.cv)).toBeGreaterThan(10)
    const { cv, mad } = statsChartSpecs(file)
    if (cv.kind !== 'grouped-bars' || mad.kind !== 'grouped-bars') return expect.unreachable()
    expect(cv.data.categories).toEqual(['acc_x', 'acc_y', 'acc_z (mean ≈ 0)'])
    expect(cv.data.series[0].values).toEqual([file.columns.acc_x.cv, file.columns.acc_y.cv, null])
    expect(cv.data.note).toBe(`not drawn, mean ≈ 0 (|CV| > 10), undefined in practice: acc_z (CV ${formatNumber(file.columns.acc_z.cv, 5)})`)
    // The scale is the others': the highest bar is acc_x's.
    const drawn = cv.data.series.flatMap((d) => d.values).filter((v): v is number => v !== null)
    expect(Math.max(...drawn.map(Math.abs))).toBe(file.columns.acc_x.cv)
    // MAD has no such trouble: every column drawn.
    expect(mad.data.series[0].values.every((v) => v !== null)).toBe(true)
    // Over prefixes likewise: the near-zero CVs leave the lines, the note names them.
    const batched = statsChartSpecs(statsFile('/data/ACC_002.csv', { ...data, acc_z: z }, ['serial'], [2, 4, 6]))
    if (batched.cv.kind !== 'series') return expect.unreachable()
    expect(batched.cv.data.series.find((s) => s.label === 'acc_z')!.values.every((v) => v === null || Math.abs(v) <= 10)).toBe(true)
    expect(batched.cv.data.note).toContain('acc_z (CV')
    // A column of mean exactly 0 names its CV ±∞; a healthy file has no note.
    const zero = statsChartSpecs(statsFile('/data/z.csv', { ...data, acc_z: [1, -1, 2, -2, 3, -3] }, ['serial'], [6])).cv
    expect(zero.kind === 'grouped-bars' && zero.data.note).toContain('acc_z (CV ±∞)')
    const healthy = statsChartSpecs(statsFile('/data/h.csv', data, ['serial'], [6])).cv
    expect(healthy.kind === 'grouped-bars' && healthy.data.note).toBeFalsy()
  })

  it('labels lines by column alone when one backend ran, and finds backends and columns that appear only in batches', () => {
    const one = statsFile('C:\\data\\run.csv', data, ['simd'], [3, 6])
    const { cv } = statsChartSpecs(one)
    if (cv.kind !== 'series') return expect.unreachable()
    expect(cv.data.series.map((s) => s.label)).toEqual(['acc_x', 'acc_y'])
    expect(cv.data.title).toBe('Coefficient of variation vs prefix size — run.csv')

    const file = twoBackends()
    file.batches[2].backends.workers = { compute_ms: 1, columns: { acc_z: { cv: 1, mad: 1, median: 1 } } }
    expect(backendsOf(file)).toEqual(['serial', 'gpu', 'workers'])
    expect(columnsOf(file)).toEqual(['acc_x', 'acc_y', 'acc_z'])
  })

  it('names every file\'s three charts by the file\'s stem, numbering stems that two inputs share', () => {
    const result = { files: [twoBackends('/a/ACC.csv'), twoBackends('/b/ACC.csv'), twoBackends('/c/other.data.csv')], failed: [], skipped: [] }
    const charts = statsCharts(result)
    expect(charts.map((c) => c.name)).toEqual([
      '1-ACC-time', '1-ACC-cv', '1-ACC-mad',
      '2-ACC-time', '2-ACC-cv', '2-ACC-mad',
      'other.data-time', 'other.data-cv', 'other.data-mad',
    ])
    expect(charts[3].spec).toEqual(statsChartSpecs(result.files[1]).time)
    // The workload's definition draws the same charts (the CLI's --out and the dashboard).
    expect(statsWorkload.charts(result)).toEqual(charts)
    // Files that failed have no charts.
    expect(statsCharts({ files: [], failed: [{ path: '/d/bad.csv', error: { code: 'invalid-input', message: 'bad' } }], skipped: [] })).toEqual([])
  })
})

/** RGBA pixels of a PNG or SVG image, rasterized at its own size. */
async function pixels(bytes: Uint8Array): Promise<{ width: number; height: number; data: Uint8ClampedArray }> {
  const image = await loadImage(Buffer.from(bytes))
  const canvas = createCanvas(image.width, image.height)
  const ctx = canvas.getContext('2d')
  ctx.drawImage(image, 0, 0)
  return { width: image.width, height: image.height, data: ctx.getImageData(0, 0, image.width, image.height).data }
}

type Image = Awaited<ReturnType<typeof pixels>>
function count(img: Image, box: { x0: number; y0: number; x1: number; y1: number }, test: (r: number, g: number, b: number) => boolean): number {
  let n = 0
  for (let y = box.y0; y < box.y1; y++)
    for (let x = box.x0; x < box.x1; x++) {
      const i = 4 * (y * img.width + x)
      if (img.data[i + 3] > 0 && test(img.data[i], img.data[i + 1], img.data[i + 2])) n++
    }
  return n
}
const dark = (r: number, g: number, b: number) => r + g + b < 200
/** Any ink, grey tick labels included. */
const ink = (r: number, g: number, b: number) => r + g + b < 500
const near = (hex: string) => {
  const [R, G, B] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
  return (r: number, g: number, b: number) => Math.abs(r - R) + Math.abs(g - G) + Math.abs(b - B) < 40
}

function pngSize(bytes: Uint8Array): { width: number; height: number } {
  expect([...bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  expect(new TextDecoder().decode(bytes.slice(12, 16))).toBe('IHDR')
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

/** Checks that every element opened is closed in order; returns the element names seen. */
function checkXml(svg: string): string[] {
  const names: string[] = []
  const stack: string[] = []
  const body = svg.replace(/^<\?xml[^>]*\?>/, '').replace(/<!--[\s\S]*?-->/g, '')
  for (const m of body.matchAll(/<(\/?)([A-Za-z][\w:-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, name, , selfClosing] = m
    if (closing) expect(stack.pop(), `</${name}> closes the open element`).toBe(name)
    else {
      names.push(name)
      if (!selfClosing) stack.push(name)
    }
  }
  expect(stack).toEqual([])
  return names
}

describe('headless rendering', () => {
  it('renders a PNG of the requested size with a white background, a title, and the data drawn', async () => {
    const png = await renderChart({ kind: 'series', data: timeData }, 'png', { width: 800, height: 500, pixelRatio: 1 })
    expect(pngSize(png)).toEqual({ width: 800, height: 500 })
    const img = await pixels(png)
    const white = (r: number, g: number, b: number) => r === 255 && g === 255 && b === 255
    expect(count(img, { x0: 0, y0: 0, x1: 4, y1: 4 }, white)).toBe(16)
    // The title is centred in the top band: text pixels, not a blank strip.
    expect(count(img, { x0: 250, y0: 0, x1: 550, y1: 35 }, dark)).toBeGreaterThan(150)
    // Every series colour is on the plot.
    for (const colour of PALETTE.slice(0, 3)) expect(count(img, { x0: 0, y0: 60, x1: 800, y1: 500 }, near(colour))).toBeGreaterThan(100)
    // Tick labels and the axis title left of the plot.
    expect(count(img, { x0: 0, y0: 60, x1: 60, y1: 460 }, ink)).toBeGreaterThan(100)
  })

  it('honours the default size and the pixel ratio', async () => {
    // By default the screen's layout size, at twice the pixels, for print.
    const png = await renderChart(roofline, 'png')
    const ratio = DEFAULT_CHART_SIZE.pixelRatio ?? 1
    expect(pngSize(png)).toEqual({ width: DEFAULT_CHART_SIZE.width * ratio, height: DEFAULT_CHART_SIZE.height * ratio })
    expect(DEFAULT_CHART_SIZE.width / DEFAULT_CHART_SIZE.height).toBeCloseTo(1.6, 2)
    expect(pngSize(await renderChart(roofline, 'png', { width: 400, height: 250 }))).toEqual({ width: 400 * ratio, height: 250 * ratio })
    expect(pngSize(await renderChart(roofline, 'png', { width: 400, height: 250, pixelRatio: 1 }))).toEqual({ width: 400, height: 250 })
    const sharp = await renderChart(roofline, 'png', { width: 400, height: 250, pixelRatio: 2 })
    expect(pngSize(sharp)).toEqual({ width: 800, height: 500 })
    const img = await pixels(sharp)
    expect(count(img, { x0: 0, y0: 0, x1: 800, y1: 500 }, near(PALETTE[0]))).toBeGreaterThan(50)
  })

  it('renders true vector SVG that rasterizes to the same chart', async () => {
    const bytes = await renderChart({ kind: 'series', data: cvData }, 'svg', { width: 640, height: 400 })
    const svg = new TextDecoder().decode(bytes)
    expect(svg).toMatch(/<svg [^>]*width="640"[^>]*height="400"/)
    expect(svg).toMatch(/<svg [^>]*viewBox="0 0 640 400"/)
    const names = checkXml(svg)
    expect(names[0]).toBe('svg')
    expect(names.filter((n) => n === 'path').length).toBeGreaterThan(50)
    // No embedded bitmap; text stays text (editable, searchable), without ligatures ("fi" of "Coefficient").
    expect(names).not.toContain('image')
    expect(svg).not.toContain('data:image')
    const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])
    expect(texts).toEqual(expect.arrayContaining(['Coefficient of variation vs prefix size', 'rows', 'coefficient of variation', 'acc_x', 'acc_y']))

    const img = await pixels(bytes)
    expect([img.width, img.height]).toEqual([640, 400])
    expect(count(img, { x0: 170, y0: 0, x1: 470, y1: 35 }, dark)).toBeGreaterThan(150)
    expect(count(img, { x0: 0, y0: 60, x1: 640, y1: 400 }, near(PALETTE[1]))).toBeGreaterThan(50)
  })

  it('rejects sizes it cannot draw', async () => {
    await expect(renderChart(roofline, 'png', { width: 0, height: 100 })).rejects.toThrow(/width must be a whole number.*got 0/)
    await expect(renderChart(roofline, 'svg', { width: 100.5, height: 100 })).rejects.toThrow(ApiError)
    await expect(renderChart(roofline, 'png', { width: 10_000, height: 100, pixelRatio: 2 })).rejects.toThrow(/width × pixel ratio must be a whole number.*got 20000/)
  })
})

describe('writeFileAtomic', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paralab-atomic-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  const fresh = async (name: string) => {
    const sub = join(dir, name)
    await mkdir(sub)
    return sub
  }

  it('writes a new file and leaves nothing else', async () => {
    const d = await fresh('new')
    await writeFileAtomic(join(d, 'chart.svg'), '<svg/>')
    await writeFileAtomic(join(d, 'chart.png'), new Uint8Array([1, 2, 3]))
    expect(await readFile(join(d, 'chart.svg'), 'utf8')).toBe('<svg/>')
    expect([...(await readFile(join(d, 'chart.png')))]).toEqual([1, 2, 3])
    expect((await readdir(d)).sort()).toEqual(['chart.png', 'chart.svg'])
  })

  it('refuses to replace an existing file unless asked to', async () => {
    const d = await fresh('exists')
    const target = join(d, 'roofline.png')
    await writeFile(target, 'old')
    const err = await writeFileAtomic(target, 'new').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).code).toBe('io')
    expect((err as ApiError).message).toBe(`${target} exists (use --force to overwrite)`)
    expect(await readFile(target, 'utf8')).toBe('old')
    expect(await readdir(d)).toEqual(['roofline.png'])

    await writeFileAtomic(target, 'new', { overwrite: true })
    expect(await readFile(target, 'utf8')).toBe('new')
    expect(await readdir(d)).toEqual(['roofline.png'])
  })

  it('lets exactly one of several concurrent writers create the file', async () => {
    const d = await fresh('race')
    const target = join(d, 'out.txt')
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => writeFileAtomic(target, `writer ${i}`)))
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []))
    expect(won).toHaveLength(1)
    expect(await readFile(target, 'utf8')).toBe(`writer ${won[0]}`)
    expect(await readdir(d)).toEqual(['out.txt'])
  })

  it('names the path when the directory is missing and writes nothing', async () => {
    const d = await fresh('missing')
    const target = join(d, 'no-such-dir', 'chart.png')
    await expect(writeFileAtomic(target, 'x')).rejects.toThrow(`cannot write ${target}: directory ${join(d, 'no-such-dir')} does not exist`)
    expect(await readdir(d)).toEqual([])
  })

  it('removes its temporary file when the final rename fails', async () => {
    const d = await fresh('rename-fails')
    const target = join(d, 'taken')
    await mkdir(join(target))
    await writeFile(join(target, 'inside'), 'keep')
    await expect(writeFileAtomic(target, 'x', { overwrite: true })).rejects.toThrow(target)
    expect(await readdir(d)).toEqual(['taken'])
    expect(await readFile(join(target, 'inside'), 'utf8')).toBe('keep')
  })
})
