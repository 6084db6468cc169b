// The correlation study's charts: the heatmap of the matrix (block-averaged by the engine), the
// histogram of r, the ranking against its threshold, time per stage and per GPU kernel, a picked
// pair overlaid, and the size sweep. The dashboard and `paralab correlation --out` draw the same specs.
import { formatNumber } from '../../charts/format'
import { finiteExtent } from '../../extent'
import { kernelsRoofline } from '../../charts/roofline'
import type { ChartSpec, HeatmapChartData, RoofData, RooflineKernel } from '../../charts/spec'
import type { NamedChart } from '../definition'
import type { ResultEnvelope } from '../envelope'
import { flagSummary } from './tables'
import { type CorrelationResult, type HeatmapAggregate, STAGES } from './types'

/** Series the ranking chart shows at most: the most anomalous ones. */
export const RANKING_BARS = 60

const fileName = (path: string) => path.split(/[\\/]/).pop() || path
const fixed = (v: number, digits: number) => (v < 0 ? `−${(-v).toFixed(digits)}` : v.toFixed(digits))

/** The heatmap's colour scale: the data's range of r, or the full −1…1. */
export const HEATMAP_RANGES = ['data', 'full'] as const
export type HeatmapRange = (typeof HEATMAP_RANGES)[number]

/**
 * The colours of the heatmap: the full −1…1 (diverging, white at 0), or the data's range — one-sided
 * (e.g. 0.75…1, sequential: diverging colours would put white at 0.875 and suggest r = 0 there) or
 * spanning 0 (diverging, symmetric about 0). The note says which, and what the data span.
 */
export function heatmapScale(values: readonly (number | null)[], range: HeatmapRange): Pick<HeatmapChartData, 'min' | 'max' | 'scale' | 'note'> {
  const extent = finiteExtent(values)
  const lo = extent?.min ?? -1
  const hi = extent?.max ?? 1
  const span = `r of the cells ${fixed(lo, 3)}…${fixed(hi, 3)}`
  if (range === 'full' || !extent) return { min: -1, max: 1, scale: 'diverging', note: `colours: the full range of r, −1…1 (${span})` }
  if (lo < 0 && hi > 0) {
    const m = Math.max(-lo, hi)
    return { min: -m, max: m, scale: 'diverging', note: m >= 1 ? `colours: the data's range, −1…1` : `colours: the data's range, symmetric about r = 0, ${fixed(-m, 3)}…${fixed(m, 3)} (not −1…1)` }
  }
  // A single value still needs a scale of some width: a hair around it.
  const [min, max] = lo < hi ? [lo, hi] : [lo - 1e-3, hi + 1e-3]
  return { min, max, scale: 'sequential', note: `colours: the data's range, r ${fixed(lo, 3)}…${fixed(hi, 3)} (not −1…1)` }
}

/** What each aggregate is called in a chart: the title names it. */
export const AGGREGATE_NAMES: Record<HeatmapAggregate, string> = { mean: 'mean', min: 'minimum', max: 'maximum' }

/**
 * `aggregate`: what a cell of a block shows (the mean where the results hold no extremes). The
 * minimum by default: a block's mean lets a few anti-correlated series among many vanish, its
 * minimum shows them (what an anomaly looks like in a correlation matrix).
 */
export function heatmapChart(r: CorrelationResult, range: HeatmapRange = 'data', aggregate: HeatmapAggregate = 'min'): ChartSpec | null {
  const h = r.heatmap
  if (!h) return null
  const values = (aggregate !== 'mean' && h[aggregate]) || h.values
  const shown: HeatmapAggregate = values === h.values ? 'mean' : aggregate
  const order = h.order === 'ranking' ? 'by ranking' : 'as given'
  const names = new Map(r.ranking.map((e) => [e.index, e.name]))
  // Mixed cells: the ranking order gives flagged series a cell each, the others blocks.
  const mixed = h.series.some((s) => s.length !== h.series[0].length && s !== h.series[h.series.length - 1])
  const blocks = mixed ? `flagged series one per cell, the others in blocks of ${h.block}` : `in blocks of ${h.block}`
  return {
    kind: 'heatmap',
    data: {
      title: `Pearson r — ${fileName(r.input.path)}, ${r.input.series} series${h.block > 1 ? ` (${AGGREGATE_NAMES[shown]} of ${h.block} × ${h.block} blocks)` : ''}`,
      size: h.size,
      values,
      labels: h.labels,
      ticks: h.series.map((s, i) => names.get(s[0]) ?? h.labels[i]),
      axisLabel: h.block > 1 ? `series ${order}, ${blocks}` : `series ${order}`,
      valueLabel: 'r',
      ...heatmapScale(values, range),
    },
  }
}

/** A block range at full resolution (or in blocks as fine as the chart shows), in the aggregate asked for. */
export function zoomChart(r: CorrelationResult, range: HeatmapRange = 'data', aggregate: HeatmapAggregate = 'min'): ChartSpec | null {
  const z = r.zoom
  if (!z) return null
  const values = (aggregate !== 'mean' && z[aggregate]) || z.values
  const shown: HeatmapAggregate = values === z.values ? 'mean' : aggregate
  const span = ([a, b]: [number, number]) => `${a}–${b}`
  const first = (labels: string[]) => labels.map((l) => l.split(' … ')[0])
  return {
    kind: 'heatmap',
    data: {
      title: `Pearson r — ${fileName(r.input.path)}, series ${span(z.rows)} × ${span(z.cols)}${z.block > 1 ? ` (${AGGREGATE_NAMES[shown]} of ${z.block} × ${z.block} blocks)` : ', full resolution'}`,
      size: z.rowLabels.length,
      values,
      labels: z.rowLabels,
      ticks: first(z.rowLabels),
      columnLabels: z.colLabels,
      columnTicks: first(z.colLabels),
      axisLabel: `series (positions ${span(z.rows)} down, ${span(z.cols)} across)`,
      valueLabel: 'r',
      ...heatmapScale(values, range),
    },
  }
}

/** A bin holding this many times the next largest dwarfs the rest: the count axis turns logarithmic. */
export const HISTOGRAM_LOG_RATIO = 10

export function histogramChart(r: CorrelationResult): ChartSpec | null {
  const h = r.histogram
  if (!h) return null
  const pairs = h.counts.reduce((a, b) => a + b, 0)
  const [largest, next] = [...h.counts].sort((a, b) => b - a)
  // A tight cluster puts nearly every pair in one bin: on a linear axis the anomalies' pairs are bars of no height.
  const logY = next > 0 && largest >= HISTOGRAM_LOG_RATIO * next
  return {
    kind: 'grouped-bars',
    data: {
      title: `Distribution of r over ${pairs} pairs — ${fileName(r.input.path)}`,
      xLabel: 'r (bin centre)',
      yLabel: logY ? 'pairs (log scale)' : 'pairs',
      categories: h.counts.map((_, i) => fixed((h.edges[i] + h.edges[i + 1]) / 2, 3)),
      series: [{ label: 'pairs', values: h.counts }],
      histogram: true,
      ...(logY && { logY, note: `count axis logarithmic: the largest bin holds ${formatNumber(largest / next, 3)}× the next largest` }),
    },
  }
}

export function rankingChart(r: CorrelationResult): ChartSpec | null {
  const ranked = r.ranking.filter((e) => e.z !== null)
  if (ranked.length === 0) return null
  const shown = ranked.slice(0, RANKING_BARS)
  return {
    kind: 'grouped-bars',
    data: {
      title: `Robust z-score of mean r — ${shown.length < ranked.length ? `the ${shown.length} lowest of ${ranked.length} series` : `${ranked.length} series`}`,
      xLabel: 'series, most anomalous first',
      yLabel: 'z of mean r',
      categories: shown.map((e) => e.name),
      series: [{ label: 'z', values: shown.map((e) => e.z) }],
      lines: [{ label: `threshold ${fixed(r.threshold, 2)}`, value: r.threshold }],
      note: flagSummary(r),
    },
  }
}

/** A run's label: the backend and, where it differs from the precision asked for, what it computed in. */
export function runLabel(run: CorrelationResult['runs'][number]): string {
  return run.arithmetic === 'f32-compensated' ? `${run.backend} (compensated f32)` : run.backend
}

export function stagesChart(r: CorrelationResult): ChartSpec | null {
  if (r.runs.length === 0) return null
  return {
    kind: 'grouped-bars',
    data: {
      title: `Time per stage, median of the repeats — ${r.input.series} × ${r.input.length}, ${r.precision}`,
      xLabel: 'backend',
      yLabel: 'time (ms)',
      categories: r.runs.map(runLabel),
      series: STAGES.map((stage) => ({ label: stage, values: r.runs.map((run) => run.stages[stage].median) })),
      stacked: true,
      // The medians of the parts are not the median of the whole: the table's total differs a little.
      note: 'each stage is its own median over the repeats; the total is the median of whole runs, so the stack and the total differ a little',
    },
  }
}

export function variantsChart(r: CorrelationResult): ChartSpec | null {
  const variants = r.runs.flatMap((run) => run.variants ?? [])
  if (variants.length === 0) return null
  return {
    kind: 'grouped-bars',
    data: {
      title: `GPU kernels, median of the repeats — ${r.input.series} × ${r.input.length}`,
      xLabel: 'kernel',
      yLabel: 'time (ms)',
      categories: variants.map((v) => `${v.stage} ${v.variant}`),
      series: [{ label: 'time', values: variants.map((v) => v.ms.median) }],
      logY: true,
    },
  }
}

export function pairChart(r: CorrelationResult): ChartSpec | null {
  const p = r.pair
  if (!p) return null
  const rText = p.r === null ? 'r undefined (a constant series)' : `r = ${fixed(p.r, 4)}`
  // Series of different units and levels (pressure near 1003, temperature near 20) on one axis would
  // hide how they move together: each is drawn standardized, (x − mean) / σ, and the note gives both.
  const z = p.values.map(standardized)
  const scales = p.names.map((n, i) => `${n}: mean ${formatNumber(z[i].mean, 4)}, σ ${formatNumber(z[i].sd, 4)}`).join('; ')
  return {
    kind: 'series',
    data: {
      title: `${p.names[0]} and ${p.names[1]}, ${rText}${p.step > 1 ? ` (min and max of every ${p.step} samples)` : ''}`,
      note: `each series standardized, (x − mean) / σ over the points drawn — ${scales}`,
      xLabel: 'sample',
      yLabel: 'standardized value (σ from the mean)',
      x: p.x,
      series: [
        { label: p.names[0], values: z[0].values },
        { label: p.names[1], values: z[1].values },
      ],
    },
  }
}

/** The values as (v − mean) / σ (a constant series: v − mean), with the mean and σ used. */
function standardized(values: readonly (number | null)[]): { values: (number | null)[]; mean: number; sd: number } {
  const finite = values.filter((v): v is number => v !== null && Number.isFinite(v))
  const mean = finite.reduce((a, v) => a + v, 0) / Math.max(finite.length, 1)
  const sd = Math.sqrt(finite.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(finite.length, 1))
  return { values: values.map((v) => (v === null || !Number.isFinite(v) ? null : sd > 0 ? (v - mean) / sd : v - mean)), mean, sd }
}

export function sweepChart(r: CorrelationResult): ChartSpec | null {
  const s = r.sweep
  if (!s || s.points.length === 0) return null
  const backends = [...new Set(s.points.flatMap((p) => Object.keys(p.backends)))]
  return {
    kind: 'series',
    data: {
      title: `Time of steps 2–5 vs ${s.over === 'series' ? 'number of series M' : 'series length N'}`,
      xLabel: s.over === 'series' ? 'series (M)' : 'samples per series (N)',
      yLabel: 'time (ms)',
      x: s.points.map((p) => (s.over === 'series' ? p.series : p.length)),
      series: backends.map((b) => ({ label: b, values: s.points.map((p) => p.backends[b] ?? null) })),
      logY: true,
    },
  }
}

/** Every chart the results have, by name. */
/** Each GPU kernel variant's measured point: its counted FLOPs and bytes (gpu/kernels.ts) over its median time. */
export function kernelPoints(r: CorrelationResult): RooflineKernel[] {
  return r.runs.flatMap((run) =>
    (run.variants ?? [])
      .filter((v) => v.ms.median > 0 && v.flop > 0 && v.bytes > 0)
      .map((v) => ({ name: `${run.backend} ${v.stage} ${v.variant} (${run.arithmetic})`, intensity: v.flop / v.bytes, performance: v.flop / v.ms.median / 1e6 })),
  )
}

/** `roof`: the device's measured ceilings, drawn when measured on the adapter the kernels ran on. */
export function rooflineChart(r: CorrelationResult, adapter?: string, roof?: RoofData | null): ChartSpec | null {
  return kernelsRoofline(kernelPoints(r), adapter, roof)
}

/** The run's --aggregate, for the charts it exports (the minimum where it names none). */
function aggregateOf(envelope?: ResultEnvelope<CorrelationResult>): HeatmapAggregate {
  const a = (envelope?.params as { aggregate?: unknown } | undefined)?.aggregate
  return a === 'mean' || a === 'max' ? a : 'min'
}

export function correlationCharts(r: CorrelationResult, envelope?: ResultEnvelope<CorrelationResult>): NamedChart[] {
  const charts: [string, ChartSpec | null][] = [
    ['heatmap', heatmapChart(r, 'data', aggregateOf(envelope))],
    ['zoom', zoomChart(r, 'data', aggregateOf(envelope))],
    ['histogram', histogramChart(r)],
    ['ranking', rankingChart(r)],
    ['stages', stagesChart(r)],
    ['variants', variantsChart(r)],
    ['sweep', sweepChart(r)],
    ['roofline', rooflineChart(r, envelope?.device?.adapter)],
    ['pair', pairChart(r)],
  ]
  return charts.filter((c): c is [string, ChartSpec] => c[1] !== null).map(([name, spec]) => ({ name, spec }))
}
