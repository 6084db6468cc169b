// The study's charts from one graph's results: time per run (the optimization-steps table, log
// scale), the blocking-factor sweep, the time split, a distance heatmap and a histogram of finite
// distances. The dashboard and `paralab paths --out` draw the same specs.
import { finiteExtent } from '../../extent'
import type { ChartSpec } from '../../charts/spec'
import type { NamedChart } from '../definition'
import type { DistanceAggregate, DistanceZoom, PathsGraphResult, PathsResult, PathsRun } from './types'

export interface PathsChartSpecs {
  steps: ChartSpec
  /** Only when some backend or variant ran at several blocking factors. */
  blocks?: ChartSpec
  split: ChartSpec
  heatmap: ChartSpec
  histogram: ChartSpec
}

const baseName = (p: string) => p.split(/[\\/]/).pop() || p

/** A run's line in the sweep: its name without the blocking factor. */
const sweepLabel = (r: PathsRun) => r.name.replace(/ B=\d+$/, '')

const AGGREGATE_NAMES: Record<DistanceAggregate, string> = { min: 'least', mean: 'mean', max: 'greatest' }

/** `aggregate`: what a cell standing for a block shows (the least where the results hold only that). */
export function pathsChartSpecs(g: PathsGraphResult, aggregate: DistanceAggregate = 'min'): PathsChartSpecs {
  const name = baseName(g.path)
  const title = (t: string) => `${t} — ${name} (V = ${g.vertices})`
  const steps: ChartSpec = {
    kind: 'bars',
    data: {
      title: title('Computation time per backend and variant'),
      note: 'median of the repeats; whiskers: fastest and slowest',
      xLabel: 'backend / variant',
      yLabel: 'time (ms)',
      logY: true,
      bars: g.runs.map((r, i) => ({ label: r.name, value: r.compute_ms, low: r.compute_range_ms[0], high: r.compute_range_ms[1], color: i })),
    },
  }

  const swept = [...new Set(g.runs.filter((r) => r.block !== undefined).map(sweepLabel))].filter(
    (label) => g.runs.filter((r) => sweepLabel(r) === label && r.block !== undefined).length > 1,
  )
  const blockSizes = [...new Set(g.runs.filter((r) => swept.includes(sweepLabel(r))).map((r) => r.block!))].sort((a, b) => a - b)
  const blocks: ChartSpec | undefined = swept.length
    ? {
        kind: 'series',
        data: {
          title: title('Blocking factor sweep'),
          xLabel: 'blocking factor B',
          yLabel: 'relaxations per second',
          x: blockSizes,
          logX: true,
          logY: true,
          series: swept.map((label) => ({
            label,
            values: blockSizes.map((b) => g.runs.find((r) => sweepLabel(r) === label && r.block === b)?.relaxations_per_s ?? null),
          })),
        },
      }
    : undefined

  const stage = (label: string, value: (r: PathsRun) => number | undefined) => ({ label, values: g.runs.map((r) => value(r) ?? null) })
  const split: ChartSpec = {
    kind: 'grouped-bars',
    data: {
      title: title('Time split'),
      xLabel: 'backend / variant',
      yLabel: 'time (ms)',
      categories: g.runs.map((r) => r.name),
      stacked: true,
      series: [
        stage('read', () => g.read_ms),
        stage('upload', (r) => r.upload_ms),
        stage('compute', (r) => r.compute_ms),
        stage('readback', (r) => r.readback_ms),
        stage('write', () => g.output?.write_ms),
      ].filter((s) => s.values.some((v) => v !== null && v > 0)),
    },
  }

  const { heatmap: h } = g
  const shown: DistanceAggregate = h.cell > 1 && h[aggregate] ? aggregate : 'min'
  const cells = h[shown] ?? h.min
  const extent = finiteExtent(cells)
  const lo = extent?.min ?? 0
  const hi = extent?.max ?? 1
  // The colours span the cells' values; with blocks those are least distances, so they can stop
  // short of the longest distance, and the note says both ranges.
  const all = g.minDistance === null ? 'no pair is reachable' : `all distances ${g.minDistance}…${g.maxDistance}`
  const note = h.cell > 1 ? `colours: each block's ${AGGREGATE_NAMES[shown]} distance, ${lo}…${hi} (${all})` : `colours: distance ${lo}…${hi}`
  const heatmap: ChartSpec = {
    kind: 'heatmap',
    data: {
      title: title(h.cell > 1 ? `Distances, ${AGGREGATE_NAMES[shown]} of ${h.cell} × ${h.cell} blocks (grey: no path)` : 'Distances (grey: no path)'),
      size: h.size,
      values: cells,
      labels: Array.from({ length: h.size }, (_, i) => (h.cell > 1 ? `${i * h.cell}…${Math.min(g.vertices, (i + 1) * h.cell) - 1}` : String(i))),
      ticks: Array.from({ length: h.size }, (_, i) => String(i * h.cell)),
      note,
      axisLabel: h.cell > 1 ? `vertex (blocks of ${h.cell}, by first vertex)` : 'vertex',
      scale: 'sequential',
      min: lo,
      max: hi > lo ? hi : lo + 1,
      valueLabel: 'distance',
    },
  }

  const { histogram: hist } = g
  const histogram: ChartSpec = {
    kind: 'grouped-bars',
    data: {
      title: title('Finite distances'),
      xLabel: 'distance',
      yLabel: 'pairs',
      histogram: true,
      categories: hist.counts.map((_, i) => {
        const a = hist.start + i * hist.width
        // Real distances: bins of real width, each from its start to the next's, to 4 digits.
        if (g.arithmetic === 'f64' || g.arithmetic === 'f32') return `${Number(a.toPrecision(4))}…${Number((a + hist.width).toPrecision(4))}`
        return hist.width === 1 ? String(a) : `${a}…${a + hist.width - 1}`
      }),
      series: [{ label: 'pairs', values: hist.counts }],
    },
  }
  return { steps, ...(blocks && { blocks }), split, heatmap, histogram }
}

/** A block range of the distances at full resolution (or in blocks as fine as the chart shows), in the aggregate asked for. */
export function distanceZoomChart(z: DistanceZoom, aggregate: DistanceAggregate = 'min'): ChartSpec {
  const shown: DistanceAggregate = z.block > 1 && z[aggregate] ? aggregate : 'min'
  const cells = z[shown] ?? z.min
  const extent = finiteExtent(cells)
  const lo = extent?.min ?? 0
  const hi = extent?.max ?? 1
  const span = ([a, b]: [number, number]) => `${a}–${b}`
  const labels = ([a, b]: [number, number]) =>
    Array.from({ length: Math.ceil((b - a + 1) / z.block) }, (_, i) => (z.block > 1 ? `${a + i * z.block}…${Math.min(b, a + (i + 1) * z.block - 1)}` : String(a + i)))
  const rows = labels(z.rows)
  const cols = labels(z.cols)
  const first = (l: string[]) => l.map((x) => x.split('…')[0])
  return {
    kind: 'heatmap',
    data: {
      title: `Distances — ${baseName(z.path)}, vertices ${span(z.rows)} × ${span(z.cols)}${z.block > 1 ? ` (${AGGREGATE_NAMES[shown]} of ${z.block} × ${z.block} blocks)` : ', full resolution'} (grey: no path)`,
      size: rows.length,
      values: cells,
      labels: rows,
      ticks: first(rows),
      columnLabels: cols,
      columnTicks: first(cols),
      note: `colours: ${z.block > 1 ? `each block's ${AGGREGATE_NAMES[shown]} distance` : 'distance'} ${lo}…${hi}`,
      axisLabel: `vertex (positions ${span(z.rows)} down, ${span(z.cols)} across)`,
      scale: 'sequential',
      min: lo,
      max: hi > lo ? hi : lo + 1,
      valueLabel: 'distance',
    },
  }
}

/** Every graph's charts, named `<file stem>-steps|blocks|split|heatmap|histogram`; inputs sharing a name get numbered stems. */
export function pathsCharts(result: PathsResult): NamedChart[] {
  const stems = result.graphs.map((g) => baseName(g.path).replace(/\.[^.]*$/, ''))
  return result.graphs.flatMap((g, i) => {
    const stem = stems.indexOf(stems[i]) === stems.lastIndexOf(stems[i]) ? stems[i] : `${i + 1}-${stems[i]}`
    return Object.entries(pathsChartSpecs(g)).map(([chart, spec]) => ({ name: `${stem}-${chart}`, spec }))
  }).concat(result.zoom ? [{ name: `${baseName(result.zoom.path).replace(/\.[^.]*$/, '')}-zoom`, spec: distanceZoomChart(result.zoom) }] : [])
}
