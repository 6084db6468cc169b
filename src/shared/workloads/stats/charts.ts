// The accelerometer study's three charts, from one file's results (one point per prefix size):
// time (one line per backend), CV and MAD (one line per column, or per column and backend when
// several backends ran). The dashboard and `paralab stats --out` draw the same specs.
import type { StatsFileResult } from './types'
import type { ChartSeries, ChartSpec } from '../../charts/spec'
import type { NamedChart } from '../definition'
import type { StatsResult } from './types'

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

  const spec = (title: string, yLabel: string, series: ChartSeries[], logY: boolean): ChartSpec => ({
    kind: 'series',
    data: { title: `${title} — ${name}`, xLabel: 'rows', yLabel, x, series, logY },
  })
  return {
    // Time spans orders of magnitude between backends: logarithmic.
    time: spec('Time vs prefix size', 'time (ms)', time, true),
    cv: spec('Coefficient of variation vs prefix size', 'coefficient of variation', perColumn('cv'), false),
    mad: spec('Median absolute deviation vs prefix size', 'median absolute deviation', perColumn('mad'), false),
  }
}

/** Every file's three charts, named `<file stem>-time|cv|mad`; inputs sharing a name get numbered stems. */
export function statsCharts(result: StatsResult): NamedChart[] {
  const stems = result.files.map((f) => (f.path.split(/[\\/]/).pop() ?? f.path).replace(/\.[^.]*$/, ''))
  return result.files.flatMap((file, i) => {
    const stem = stems.indexOf(stems[i]) === stems.lastIndexOf(stems[i]) ? stems[i] : `${i + 1}-${stems[i]}`
    return Object.entries(statsChartSpecs(file)).map(([chart, spec]) => ({ name: `${stem}-${chart}`, spec }))
  })
}
