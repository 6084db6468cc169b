// The accelerometer study's three charts, from one file's results: time against prefix size
// (one line per backend), and CV and MAD against prefix size (one line per column, or per
// column and backend when several backends ran).
import type { StatsFileResult } from '../stats'
import type { ChartSpec, ChartSeries } from './spec'

export interface StatsCharts {
  time: ChartSpec
  cv: ChartSpec
  mad: ChartSpec
}

export function statsCharts(file: StatsFileResult): StatsCharts {
  const x = file.batches.map((b) => b.rows)
  const backends = Object.keys(file.backends)
  const columns = Object.keys(file.columns)
  const name = file.path.split(/[\\/]/).pop() ?? file.path
  const time: ChartSeries[] = backends.map((b) => ({
    label: `${b} (${file.backends[b].precision})`,
    values: file.batches.map((p) => p.backends[b]?.compute_ms ?? null),
  }))
  const perColumn = (stat: 'cv' | 'mad'): ChartSeries[] =>
    columns.flatMap((c) =>
      backends.map((b) => ({
        label: backends.length > 1 ? `${c} · ${b}` : c,
        values: file.batches.map((p) => p.backends[b]?.columns[c]?.[stat] ?? null),
      })),
    )
  return {
    time: { kind: 'stats-time', data: { x, series: time, title: `Computation time · ${name}` } },
    cv: { kind: 'stats-cv', data: { x, series: perColumn('cv'), title: `Coefficient of variation · ${name}` } },
    mad: { kind: 'stats-mad', data: { x, series: perColumn('mad'), title: `Median absolute deviation · ${name}` } },
  }
}
