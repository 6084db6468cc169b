// The statistics charts as a scientist reads them: CV and MAD with a colour per column and a dash
// pattern per backend, coinciding backends drawn once and named in a note, prefix sizes on a log
// axis when they span decades, axes with units; the speedup over serial as bars with min–max
// whiskers from the envelope's timings, configured, drawn headless to PNG and SVG, and written by
// `--out`; the CLI text with min and max beside the median; the engine's phase texts.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createCanvas, loadImage } from '@napi-rs/canvas'
import type { Chart, ChartDataset, LegendItem } from 'chart.js'
import { chartConfig } from '../../src/shared/charts'
import type { BarsChartData, ChartSpec, SeriesChartData } from '../../src/shared/charts/spec'
import { DASHES, PALETTE, TEXT_COLOR } from '../../src/shared/charts/theme'
import { phaseKey, type JobEvent } from '../../src/shared/jobs'
import { timingOf, type Timing } from '../../src/shared/workloads/envelope'
import { statsWorkload } from '../../src/shared/workloads/stats'
import { statsChartSpecs, statsCharts } from '../../src/shared/workloads/stats/charts'
import { fileTimings } from '../../src/shared/workloads/stats/timings'
import type { StatsFileResult } from '../../src/shared/workloads/stats/types'
import { renderChart } from '../../src/main/charts/render'
import { Backend } from '../../src/main/backend/backend'
import { writeOutputs } from '../../src/main/results/outputs'
import { describeStats } from '../../src/main/workloads/stats/describe'
import { ENGINES } from '../../src/main/workloads'
import { statsEnvelope, statsFile, statsResult } from '../renderer/stats-fixture'

const dir = mkdtempSync(join(tmpdir(), 'paralab-stats-charts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const data = { acc_x: [1, 3, 2, 8, 5, 4, 7, 6], acc_y: [10, 12, 11, 9, 13, 10, 12, 11], acc_z: [0.5, 0.7, 0.2, 0.9, 0.4, 0.6, 0.3, 0.8] }
const BACKENDS = ['serial', 'simd', 'workers', 'gpu']

/** Four backends: the CPU ones agree exactly, the GPU (f32) differs a little. */
function file(prefixes = [2, 4, 8]): StatsFileResult {
  const f = statsFile('/data/ACC_001.csv', data, BACKENDS, prefixes)
  for (const b of f.batches) for (const c of Object.values(b.backends.gpu.columns)) (c.cv *= 1 + 1e-7), (c.mad *= 1 - 1e-7)
  return f
}

const series = (spec: ChartSpec): SeriesChartData => {
  if (spec.kind !== 'series') throw new Error(`series expected, got ${spec.kind}`)
  return spec.data
}
const bars = (spec: ChartSpec | { reason: string }): BarsChartData => {
  if (!('kind' in spec) || spec.kind !== 'bars') throw new Error(`bars expected, got ${JSON.stringify(spec)}`)
  return spec.data
}
type Scale = { type: string; min?: number; max?: number; title: { text: string } }
const scales = (spec: ChartSpec) => chartConfig(spec).options!.scales as Record<'x' | 'y', Scale>

const ms = (...runs: number[]): Timing => timingOf(runs)
const timings: Record<string, Timing> = { serial: ms(100, 120, 90), simd: ms(25, 30, 20), workers: ms(10, 12, 8), gpu: ms(400, 500, 450) }

describe('CV and MAD charts', () => {
  it('give each column a colour and each group of backends a dash pattern, drawing identical backends once', () => {
    const f = file()
    for (const stat of ['cv', 'mad'] as const) {
      const d = series(statsChartSpecs(f)[stat])
      // serial, simd and workers computed the very same values: one line per column for them, one for the GPU.
      expect(d.series.map((s) => s.label)).toEqual([
        'acc_x · serial, simd, workers', 'acc_x · gpu',
        'acc_y · serial, simd, workers', 'acc_y · gpu',
        'acc_z · serial, simd, workers', 'acc_z · gpu',
      ])
      expect(d.series.map((s) => [s.color, s.dash])).toEqual([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])
      expect(d.series[3].values).toEqual(f.batches.map((b) => b.backends.gpu.columns.acc_y[stat]))
      expect(d.note).toBe('identical for serial, simd, workers')
      // The legend: a colour per column, a dash pattern per group — not one entry per line.
      expect(d.legend).toEqual([
        { label: 'acc_x', color: 0 }, { label: 'acc_y', color: 1 }, { label: 'acc_z', color: 2 },
        { label: 'serial, simd, workers', dash: 0 }, { label: 'gpu', dash: 1 },
      ])

      const cfg = chartConfig(statsChartSpecs(f)[stat])
      const datasets = cfg.data.datasets as ChartDataset<'line'>[]
      expect(datasets.map((ds) => ds.borderColor)).toEqual([0, 0, 1, 1, 2, 2].map((i) => PALETTE[i]))
      expect(datasets.map((ds) => ds.borderDash)).toEqual([0, 1, 0, 1, 0, 1].map((i) => DASHES[i]))
      expect(DASHES[1].length).toBeGreaterThan(0)
      expect(cfg.options?.plugins?.subtitle).toMatchObject({ display: true, text: 'identical for serial, simd, workers' })
    }
  })

  it('merges every backend when all agree, with a plain legend of columns', () => {
    const f = statsFile('/data/ACC_001.csv', data, ['serial', 'simd', 'workers-simd'], [4, 8])
    const d = series(statsChartSpecs(f).cv)
    expect(d.series.map((s) => s.label)).toEqual(['acc_x', 'acc_y', 'acc_z'])
    expect(d.series.map((s) => s.color)).toEqual([0, 1, 2])
    expect(d.note).toBe('identical for serial, simd, workers-simd')
    expect(d.legend).toBeUndefined()
    // One backend: nothing merged, nothing to note.
    const one = series(statsChartSpecs(statsFile('/d/one.csv', data, ['simd'], [4, 8])).mad)
    expect(one.note).toBeUndefined()
    expect(chartConfig({ kind: 'series', data: one }).options?.plugins?.subtitle).toBeUndefined()
  })

  it('keeps backends apart that differ anywhere, even by one missing point', () => {
    const f = statsFile('/data/ACC_001.csv', data, ['serial', 'simd'], [4, 8])
    delete f.batches[0].backends.simd
    expect(series(statsChartSpecs(f).cv).series.map((s) => s.label)).toEqual(['acc_x · serial', 'acc_x · simd', 'acc_y · serial', 'acc_y · simd', 'acc_z · serial', 'acc_z · simd'])
  })

  it('draws a legend of keys, each hiding and showing every line it stands for', () => {
    const cfg = chartConfig(statsChartSpecs(file()).cv)
    const legend = cfg.options!.plugins!.legend!
    const visible = [true, true, true, true, true, true]
    const chart = {
      isDatasetVisible: (i: number) => visible[i],
      setDatasetVisibility: (i: number, v: boolean) => (visible[i] = v),
      update: () => {},
    } as unknown as Chart
    const items = (legend.labels!.generateLabels as (c: Chart) => LegendItem[])(chart)
    expect(items.map((i) => i.text)).toEqual(['acc_x', 'acc_y', 'acc_z', 'serial, simd, workers', 'gpu'])
    expect(items.map((i) => i.strokeStyle)).toEqual([PALETTE[0], PALETTE[1], PALETTE[2], expect.any(String), expect.any(String)])
    expect(items.map((i) => i.lineDash)).toEqual([DASHES[0], DASHES[0], DASHES[0], DASHES[0], DASHES[1]])
    const click = legend.onClick as unknown as (e: unknown, item: LegendItem, l: { chart: Chart }) => void
    click(null, items[4], { chart }) // gpu: the dashed lines
    expect(visible).toEqual([true, false, true, false, true, false])
    click(null, items[1], { chart }) // acc_y
    expect(visible).toEqual([true, false, false, false, true, false])
    expect((legend.labels!.generateLabels as (c: Chart) => LegendItem[])(chart).map((i) => i.hidden)).toEqual([false, true, false, false, true])
  })

  it('labels every axis with its unit', () => {
    const specs = statsChartSpecs(file(), timings)
    for (const kind of ['time', 'cv', 'mad'] as const) expect(scales(specs[kind]).x.title.text).toBe('prefix size (rows)')
    expect(scales(specs.time).y.title.text).toBe('time (ms)')
    expect(scales(specs.cv).y.title.text).toBe('coefficient of variation (std / mean, no unit)')
    expect(scales(specs.mad).y.title.text).toBe('median absolute deviation (unit of the data)')
    const speedup = specs.speedup as ChartSpec
    expect([scales(speedup).x.title.text, scales(speedup).y.title.text]).toEqual(['backend', 'speedup over serial (×)'])
  })

  it('puts the prefix sizes on a log axis when they span more than a decade, from step to step around them', () => {
    // 20 prefixes of 2,000 rows: 100 … 2,000.
    const many = file(Array.from({ length: 20 }, (_, i) => 100 * (i + 1)))
    for (const kind of ['time', 'cv', 'mad'] as const) {
      expect(series(statsChartSpecs(many)[kind]).logX).toBe(true)
      const { x } = scales(statsChartSpecs(many)[kind])
      expect([x.type, x.min, x.max]).toEqual(['logarithmic', 100, 2000])
    }
    // 10 prefixes span exactly a decade; 3 less: linear.
    expect(series(statsChartSpecs(file(Array.from({ length: 10 }, (_, i) => 100 * (i + 1)))).cv).logX).toBe(false)
    expect(scales(statsChartSpecs(file([300, 600, 900])).cv).x.type).toBe('linear')
    const odd = chartConfig({ kind: 'series', data: { title: 't', xLabel: 'x', yLabel: 'y', x: [130, 4100], series: [{ label: 'a', values: [1, 2] }], logX: true } })
    expect([odd.options!.scales!.x!.min, odd.options!.scales!.x!.max]).toEqual([100, 5000])
  })
})

describe('one batch (the whole file, the default)', () => {
  it('draws time per backend and CV and MAD per column as bars, not lines of one point on a made-up axis', () => {
    const f = statsFile('/data/ACC_001.csv', data, BACKENDS, [8])
    for (const c of Object.values(f.backends.gpu.columns)) c.cv *= 1 + 1e-7
    const specs = statsChartSpecs(f)
    for (const key of ['time', 'cv', 'mad'] as const) expect(specs[key].kind, key).toBe('grouped-bars')
    const cv = specs.cv as Extract<ChartSpec, { kind: 'grouped-bars' }>
    expect(cv.data).toMatchObject({ title: 'Coefficient of variation per column — ACC_001.csv', xLabel: 'column', categories: ['acc_x', 'acc_y', 'acc_z'] })
    // The CPU backends agree exactly: one series for them, one for the GPU's f32 values.
    expect(cv.data.series.map((s) => s.label)).toEqual(['serial, simd, workers', 'gpu'])
    expect(cv.data.series[0].values).toEqual(['acc_x', 'acc_y', 'acc_z'].map((c) => f.columns[c].cv))
    const time = specs.time as Extract<ChartSpec, { kind: 'grouped-bars' }>
    expect(time.data).toMatchObject({ xLabel: 'backend', categories: BACKENDS, logY: true })
    expect(time.data.series[0].values).toEqual(BACKENDS.map((b) => f.backends[b].compute_ms))
    // Each is a chart Chart.js can draw.
    for (const key of ['time', 'cv', 'mad'] as const) expect(() => chartConfig(specs[key])).not.toThrow()
  })
})

describe('speedup over serial', () => {
  it('is the ratio of medians, whiskers from the slowest to the fastest ratio of single runs, in the time chart\'s colours', () => {
    const specs = statsChartSpecs(file(), timings)
    const d = bars(specs.speedup)
    expect(d.title).toBe('Speedup over serial — ACC_001.csv')
    expect(d.note).toBe('median of 3 runs; whiskers: min–max over single runs')
    expect(d.bars.map((b) => b.label)).toEqual(BACKENDS)
    const [serial, simd, , gpu] = d.bars
    expect(serial).toEqual({ label: 'serial', value: 1, low: 90 / 120, high: 120 / 90, color: 0 })
    expect(simd).toEqual({ label: 'simd', value: 100 / 25, low: 90 / 30, high: 120 / 20, color: 1 })
    expect(gpu.value).toBeCloseTo(100 / 450, 12)
    expect([gpu.low, gpu.high]).toEqual([90 / 500, 120 / 400])
    expect(d.bars.map((b) => b.color)).toEqual(series(specs.time).series.map((_, i) => i))
    // From 0.18 to 15: a log axis.
    expect(d.logY).toBe(true)

    const cfg = chartConfig(specs.speedup as ChartSpec)
    expect(cfg.type).toBe('barWithErrorBars')
    expect(cfg.data.labels).toEqual(BACKENDS)
    expect(cfg.data.datasets[0].data).toEqual(d.bars.map((b) => ({ y: b.value, yMin: b.low, yMax: b.high })))
    expect(cfg.data.datasets[0].borderColor).toEqual(PALETTE.slice(0, 4))
    const { y } = scales(specs.speedup as ChartSpec)
    expect([y.type, y.min, y.max]).toEqual(['logarithmic', 0.1, 20])
    expect(cfg.options?.plugins?.legend?.display).toBe(false)
    const label = cfg.options!.plugins!.tooltip!.callbacks!.label as unknown as (item: { dataIndex: number }) => string
    expect(label({ dataIndex: 1 })).toBe('speedup over serial (×): 4 (3–6)')
  })

  it('is linear from zero when the speedups stay within a decade', () => {
    const spec = statsChartSpecs(file(), { serial: ms(100, 110), simd: ms(30, 40) }).speedup as ChartSpec
    expect(bars(spec).logY).toBe(false)
    expect(scales(spec).y).toMatchObject({ type: 'linear', min: 0 })
  })

  it('is not drawn without serial, without its timings or with serial alone, and says why', () => {
    const noSerial = statsFile('/d/a.csv', data, ['simd', 'gpu'], [4, 8])
    expect(statsChartSpecs(noSerial, { simd: ms(1), gpu: ms(2) }).speedup).toEqual({ reason: 'serial did not run; tick it to compare the other backends with it' })
    expect(statsChartSpecs(file()).speedup).toEqual({ reason: 'no timings of serial for this file' })
    const alone = statsFile('/d/a.csv', data, ['serial'], [4, 8])
    expect(statsChartSpecs(alone, { serial: ms(1) }).speedup).toEqual({ reason: 'only serial ran' })
  })

  it('rejects bars it cannot draw, naming the bar', () => {
    const bad = (b: BarsChartData['bars'][number]) => () => chartConfig({ kind: 'bars', data: { title: 'S', xLabel: 'b', yLabel: 'v', bars: [b] } })
    expect(bad({ label: 'gpu', value: NaN })).toThrow('chart "S": bar "gpu" needs finite numbers, got NaN (NaN–NaN)')
    expect(bad({ label: 'simd', value: 3, low: 4, high: 5 })).toThrow('chart "S": bar "simd" has 3 outside its range 4–5')
  })
})

describe('timings of each file and the definition\'s charts', () => {
  it('finds a file\'s timings by backend (one input) or by file and backend (several)', () => {
    const a = statsFile('/x/a.csv', data, ['serial', 'simd'], [8])
    const b = statsFile('/y/b.csv', data, ['serial', 'simd'], [8])
    expect(fileTimings(statsResult(a), { serial: ms(1), simd: ms(2) }, a)).toEqual({ serial: ms(1), simd: ms(2) })
    const several = { '/x/a.csv: serial': ms(1), '/x/a.csv: simd': ms(2), '/y/b.csv: serial': ms(3), '/y/b.csv: simd': ms(4) }
    expect(fileTimings(statsResult(a, b), several, b)).toEqual({ serial: ms(3), simd: ms(4) })
    // Plain keys belong to a one-file job only; two inputs of one name are told apart by their paths.
    expect(fileTimings(statsResult(a, b), { serial: ms(1) }, a)).toEqual({})
    const twin = statsFile('/z/a.csv', data, ['serial'], [8])
    expect(fileTimings(statsResult(a, twin), { ...several, '/z/a.csv: serial': ms(9) }, twin)).toEqual({ serial: ms(9) })
  })

  it('names the speedup chart beside the others when the envelope is given', () => {
    const result = statsResult(file())
    const envelope = { ...statsEnvelope(result), timings }
    expect(statsCharts(result, envelope).map((c) => c.name)).toEqual(['ACC_001-time', 'ACC_001-speedup', 'ACC_001-cv', 'ACC_001-mad'])
    expect(statsWorkload.charts(result, envelope)).toEqual(statsCharts(result, envelope))
    expect(statsCharts(result).map((c) => c.name)).toEqual(['ACC_001-time', 'ACC_001-cv', 'ACC_001-mad'])
  })
})

/** Text of the SVG's <text> elements. */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])

describe('speedup chart, headless', () => {
  const spec = statsChartSpecs(file(), timings).speedup as ChartSpec

  it('renders an SVG with a bar of each colour, a whisker on each bar, and its words as text', async () => {
    const svg = new TextDecoder().decode(await renderChart(spec, 'svg', { width: 800, height: 500 }))
    for (const colour of PALETTE.slice(0, 4)) expect(svg).toMatch(new RegExp(`<path fill="${colour}"`, 'i'))
    // Whiskers: a vertical stroke per bar in the text colour, from yMin to yMax.
    const whiskers = [...svg.matchAll(new RegExp(`<path fill="none" stroke="${TEXT_COLOR}"[^>]*d="M0 ([\\d.]+)L0 ([\\d.]+)"`, 'gi'))]
    expect(whiskers).toHaveLength(4)
    // On a log axis the whiskers' lengths are the log-ratios of their ends: simd's (6/3) is longer than serial's (1.33/0.75).
    const length = (m: RegExpMatchArray) => Math.abs(Number(m[1]) - Number(m[2]))
    expect(length(whiskers[1]) / length(whiskers[0])).toBeCloseTo(Math.log(2) / Math.log(16 / 9), 1)
    expect(texts(svg)).toEqual(
      expect.arrayContaining(['Speedup over serial — ACC_001.csv', 'median of 3 runs; whiskers: min–max over single runs', 'backend', 'speedup over serial (×)', ...BACKENDS]),
    )
    expect(svg).not.toContain('<image')
  })

  it('renders a PNG with every bar\'s colour and the whiskers\' ink', async () => {
    const png = await renderChart(spec, 'png', { width: 800, height: 500, pixelRatio: 1 })
    const image = await loadImage(Buffer.from(png))
    const canvas = createCanvas(image.width, image.height)
    const ctx = canvas.getContext('2d')
    ctx.drawImage(image, 0, 0)
    const px = ctx.getImageData(0, 0, image.width, image.height).data
    expect([image.width, image.height]).toEqual([800, 500])
    const count = (hex: string) => {
      const [R, G, B] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
      let n = 0
      for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - R) + Math.abs(px[i + 1] - G) + Math.abs(px[i + 2] - B) < 30) n++
      return n
    }
    for (const colour of PALETTE.slice(0, 4)) expect(count(colour), colour).toBeGreaterThan(100)
    expect(count(TEXT_COLOR)).toBeGreaterThan(300)
  })
})

describe('stats results, run for real', () => {
  const inputs = ['a.csv', 'b.csv'].map((name, k) => {
    const path = join(dir, name)
    writeFileSync(path, 'acc_x,acc_y\n' + Array.from({ length: 3000 }, (_, i) => `${(i * 7 + k) % 101},${(i * 13) % 37}`).join('\n') + '\n')
    return path
  })

  it('phases say the file k of F and the repeat i of R, with steady keys; --out writes the speedup charts', async () => {
    const backend = new Backend({ engines: ENGINES })
    const phases: string[] = []
    backend.jobs.on('event', (e: JobEvent) => void (e.type === 'progress' && phases.push(e.phase)))
    const envelope = await backend.jobs.result(backend.startJob('stats', { files: inputs, backends: ['serial', 'simd'], repeat: 3, batches: 2 }))
    expect(phases.some((p) => /^loading a\.csv \(file 1 of 2\) · [\d.]+ M rows$/.test(p))).toBe(true)
    expect(phases).toContain('serial f64 · a.csv (file 1 of 2) · repeat 1 of 3')
    expect(phases.at(-2)).toMatch(/^simd f64 · b\.csv \(file 2 of 2\) · repeat [1-3] of 3$/)
    expect(phases.at(-1)).toBe('done')
    // One key per phase whatever the repeat: the CLI prints a line per key.
    const keys = [...new Set(phases.map(phaseKey))]
    expect(keys.filter((k) => k.startsWith('serial'))).toEqual(['serial f# · a.csv (file # of #) · repeat # of #', 'serial f# · b.csv (file # of #) · repeat # of #'])

    const out = join(dir, 'out')
    await writeOutputs(out, envelope)
    expect(readdirSync(out).filter((f) => f.includes('speedup')).sort()).toEqual(['a-speedup.png', 'a-speedup.svg', 'b-speedup.png', 'b-speedup.svg'])

    // The CLI's text: min and max beside the median, with the envelope's timings.
    const text = describeStats(envelope.results as never, envelope as never)
    expect(text).toContain('compute: whole columns, 3 runs per backend')
    const header = text.split('\n').find((l) => l.startsWith('backend'))!
    expect(header).toMatch(/^backend\s+precision\s+compute ms\s+min ms\s+max ms\s+upload ms/)
    const t = envelope.timings[`${inputs[0]}: simd`]
    const row = text.split('\n').find((l) => l.startsWith('simd'))!.split(/\s+/)
    expect(row.slice(2, 5)).toEqual([t.median, t.min, t.max].map((v) => v.toFixed(2)))
    expect(t.min).toBeLessThanOrEqual(t.median)
    // Without the envelope, as before: the median alone.
    expect(describeStats(envelope.results as never)).not.toContain('min ms')
  })
})
