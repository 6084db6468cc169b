// The accelerometer study's three charts, from one file's results (one point per prefix size):
// time (one line per backend), CV and MAD (one line per column, or per column and backend when
// several backends ran). The dashboard and `paralab stats --out` draw the same specs.
import type { StatsFileResult } from './types'
import type { ChartSeries, ChartSpec, SeriesChartData } from '../../charts/spec'
import { seriesTitle } from '../../charts/series'

export interface StatsChartSpecs {
  time: ChartSpec
  cv: ChartSpec
  mad: ChartSpec
}

/** Backends that ran, in the order of the file's results, then any that appear only in batches. */
export function backendsOf(file: StatsFileResult): string[] {
  const names = new Set(Object.keys(file.backends))
  for (const batch of file.batches) for (const b of Object.keys(batch.backends)) names.add(b)
  return [...names]
}

export function columnsOf(file: StatsFileResult): string[] {
  const names = new Set(Object.keys(file.columns))
  for (const batch of file.batches)
    for (const b of Object.values(batch.backends)) for (const c of Object.keys(b.columns)) names.add(c)
  return [...names]
}

export function statsChartSpecs(file: StatsFileResult): StatsChartSpecs {
  const x = file.batches.map((b) => b.rows)
  const backends = backendsOf(file)
  const columns = columnsOf(file)
  const name = file.path.split(/[\\/]/).pop() || file.path

  const time: ChartSeries[] = backends.map((backend) => ({
    label: backend,
    values: file.batches.map((b) => b.backends[backend]?.compute_ms ?? null),
  }))
  const perColumn = (stat: 'cv' | 'mad'): ChartSeries[] =>
    columns.flatMap((column) =>
      backends.map((backend) => ({
        label: backends.length > 1 ? `${column} · ${backend}` : column,
        values: file.batches.map((b) => b.backends[backend]?.columns[column]?.[stat] ?? null),
      })),
    )

  const spec = (kind: 'stats-time' | 'stats-cv' | 'stats-mad', series: ChartSeries[]): ChartSpec => {
    const data: SeriesChartData = { x, series }
    return { kind, data: { ...data, title: `${seriesTitle(kind, data)} — ${name}` } }
  }
  return { time: spec('stats-time', time), cv: spec('stats-cv', perColumn('cv')), mad: spec('stats-mad', perColumn('mad')) }
}
