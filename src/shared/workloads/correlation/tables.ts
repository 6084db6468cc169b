// Correlation results as tables (CSV): the ranking of every series, each backend's stage times
// and accuracy, each GPU kernel's, the histogram, the sweep and a picked pair.
import type { ResultTable } from '../definition'
import { type CorrelationResult, STAGES } from './types'

export function correlationTables(r: CorrelationResult): ResultTable[] {
  const tables: ResultTable[] = []
  if (r.runs.length)
    tables.push({
      name: 'runs',
      columns: ['backend', 'arithmetic', 'threads', ...STAGES.map((s) => `${s}_ms`), 'total_ms', 'total_min_ms', 'total_max_ms', 'upload_ms', 'download_ms', 'max_abs_dr'],
      rows: r.runs.map((run) => [
        run.backend,
        run.arithmetic,
        run.threads ?? null,
        ...STAGES.map((s) => run.stages[s].median),
        run.total.median,
        run.total.min,
        run.total.max,
        run.upload_ms ?? null,
        run.download_ms ?? null,
        run.max_abs_dr,
      ]),
    })
  const variants = r.runs.flatMap((run) => (run.variants ?? []).map((v) => ({ run, v })))
  if (variants.length)
    tables.push({
      name: 'kernels',
      columns: ['backend', 'stage', 'variant', 'median_ms', 'min_ms', 'max_ms', 'flop', 'bytes', 'GFLOP_per_s', 'GB_per_s', 'deviation'],
      rows: variants.map(({ run, v }) => [run.backend, v.stage, v.variant, v.ms.median, v.ms.min, v.ms.max, v.flop, v.bytes, v.flop / v.ms.median / 1e6, v.bytes / v.ms.median / 1e6, v.deviation]),
    })
  if (r.ranking.length)
    tables.push({
      name: 'ranking',
      columns: ['rank', 'name', 'index', 'mean_r', 'median_r', 'z', 'flagged'],
      rows: r.ranking.map((e, i) => [i + 1, e.name, e.index, e.meanR, e.medianR, e.z, e.flagged]),
    })
  if (r.histogram)
    tables.push({
      name: 'histogram',
      columns: ['r_from', 'r_to', 'pairs'],
      rows: r.histogram.counts.map((c, i) => [r.histogram!.edges[i], r.histogram!.edges[i + 1], c]),
    })
  if (r.sweep)
    tables.push({
      name: 'sweep',
      columns: ['series', 'length', 'backend', 'total_ms'],
      rows: r.sweep.points.flatMap((p) => Object.entries(p.backends).map(([b, ms]) => [p.series, p.length, b, ms])),
    })
  if (r.pair)
    tables.push({
      name: 'pair',
      columns: ['sample', r.pair.names[0], r.pair.names[1]],
      rows: r.pair.x.map((x, i) => [x, r.pair!.values[0][i], r.pair!.values[1][i]]),
    })
  return tables
}
