// The accelerometer study's charts of one file, one point per prefix size: time (a line per
// backend), speedup over serial (bars: the median, whiskers min–max over the repeats), CV and MAD
// (a colour per column, a dash pattern per backend; backends whose values coincide are drawn once).
// With one batch (the whole file, the default) there is no prefix axis: time per backend, and CV
// and MAD per column, as bars.
// The dashboard and `paralab stats --out` draw the same specs.
import type { ChartSeries, ChartSpec, LegendKey, SeriesChartData } from '../../charts/spec'
import type { NamedChart } from '../definition'
import type { ResultEnvelope, Timing } from '../envelope'
import { fileName, fileTimings } from './timings'
import type { StatsFileResult, StatsResult } from './types'
import { maxOf, minOf } from '../../extent'
import { formatNumber } from '../../charts/format'
import { CV_MEANINGFUL_UP_TO, cvUndefinedInPractice, meanNearZero } from './cv-meaning'

export interface StatsChartSpecs {
  time: ChartSpec
  /** Speedup over serial, or why there is none. */
  speedup: ChartSpec | { reason: string }
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

/** `timings`: the file's, by backend (see fileTimings); without them there is no speedup chart. */
export function statsChartSpecs(file: StatsFileResult, timings: Record<string, Timing> = {}): StatsChartSpecs {
  const x = file.batches.map((b) => b.rows)
  const backends = backendsOf(file)
  const columns = columnsOf(file)
  const name = fileName(file.path)
  // Prefix sizes spanning more than a decade (many batches) read better on a log axis.
  const logX = x.length > 1 && maxOf(x) > 10 * minOf(x)

  const spec = (title: string, yLabel: string, logY: boolean, lines: Pick<SeriesChartData, 'series' | 'note' | 'legend'>): ChartSpec => ({
    kind: 'series',
    data: { title: `${title} — ${name}`, xLabel: 'prefix size (rows)', yLabel, x, logX, logY, ...lines },
  })
  const time: ChartSeries[] = backends.map((backend) => ({
    label: backend,
    values: file.batches.map((b) => b.backends[backend]?.compute_ms ?? null),
  }))
  const values = (stat: 'cv' | 'mad') => (backend: string, column: string) =>
    file.batches.map((b) => b.backends[backend]?.columns[column]?.[stat] ?? null)
  // A CV of a column with its mean ≈ 0 is left off the chart (it would set the scale and flatten the
  // others), and named in the note with its value.
  const cvShown = (backend: string, column: string) => values('cv')(backend, column).map((v) => (cvUndefinedInPractice(v) ? null : v))
  const cvLeftOut = columns.filter(
    (c) =>
      meanNearZero(file.columns[c]) ||
      backends.some((b) => meanNearZero(file.backends[b]?.columns[c]) || values('cv')(b, c).some((v) => cvUndefinedInPractice(v))),
  )
  const cvNote = cvLeftOut.length
    ? `not drawn, mean ≈ 0 (|CV| > ${CV_MEANINGFUL_UP_TO}), undefined in practice: ${cvLeftOut.map((c) => `${c} (CV ${cvText(file.columns[c])})`).join(', ')}`
    : undefined
  // One batch is one prefix, the whole file: lines of one point on a made-up axis say nothing, bars do.
  if (x.length <= 1) {
    const bars = (title: string, yLabel: string, categories: string[], series: { label: string; values: (number | null)[] }[], logY = false, note?: string, xLabel?: string): ChartSpec => ({
      kind: 'grouped-bars',
      data: { title: `${title} — ${name}`, xLabel: xLabel ?? (categories === columns ? 'column' : 'backend'), yLabel, categories, series, logY, ...(note && { note }) },
    })
    const finite = (v: number | null | undefined) => (v !== null && v !== undefined && Number.isFinite(v) ? v : null)
    const perBackend = (stat: 'cv' | 'mad') => {
      const value = (b: string, c: string) => finite(file.backends[b]?.columns[c]?.[stat] ?? file.batches[0]?.backends[b]?.columns[c]?.[stat])
      const at = (b: string) => columns.map((c) => (stat === 'cv' && cvLeftOut.includes(c) ? null : value(b, c)))
      // Backends whose values coincide on every column are one series, named together.
      const groups: string[][] = []
      for (const b of backends) {
        const g = groups.find((g) => at(g[0]).every((v, i) => Object.is(v, at(b)[i])))
        if (g) g.push(b)
        else groups.push([b])
      }
      return groups.map((g) => ({ label: g.join(', '), values: at(g[0]) }))
    }
    return {
      time: bars('Time per backend', 'time (ms)', backends, [{ label: 'compute', values: backends.map((b) => finite(file.backends[b]?.compute_ms ?? file.batches[0]?.backends[b]?.compute_ms)) }], true, 'whole file, one batch'),
      speedup: speedup(name, backends, timings),
      cv: bars(
        'Coefficient of variation per column',
        'coefficient of variation (std / mean, no unit)',
        columns.map((c) => (cvLeftOut.includes(c) ? `${c} (mean ≈ 0)` : c)),
        perBackend('cv'),
        false,
        cvNote,
        'column',
      ),
      mad: bars('Median absolute deviation per column', 'median absolute deviation (unit of the data)', columns, perBackend('mad')),
    }
  }
  return {
    // Time spans orders of magnitude between backends: logarithmic.
    time: spec('Time vs prefix size', 'time (ms)', true, { series: time }),
    speedup: speedup(name, backends, timings),
    cv: withNote(spec('Coefficient of variation vs prefix size', 'coefficient of variation (std / mean, no unit)', false, perColumn(columns, backends, cvShown)), cvNote),
    mad: spec('Median absolute deviation vs prefix size', 'median absolute deviation (unit of the data)', false, perColumn(columns, backends, values('mad'))),
  }
}

/** A column's reference CV as the note gives it: "−1 154.7", or ±∞ where its mean is 0 (JSON has null). */
function cvText(s: { cv: number | null; mean: number | null } | undefined): string {
  if (typeof s?.cv === 'number' && Number.isFinite(s.cv)) return formatNumber(s.cv, 5)
  return s?.mean === 0 ? '±∞' : 'NaN'
}

/** `spec` with `note` added to its own (a series chart's merged backends). */
function withNote(spec: ChartSpec, note: string | undefined): ChartSpec {
  if (!note || spec.kind !== 'series') return spec
  return { ...spec, data: { ...spec.data, note: spec.data.note ? `${spec.data.note}; ${note}` : note } }
}

/**
 * A line per column and group of backends whose values coincide on every column: a colour per
 * column, a dash pattern per group, a legend of both and a note naming the merged backends.
 */
function perColumn(
  columns: string[],
  backends: string[],
  values: (backend: string, column: string) => (number | null)[],
): Pick<SeriesChartData, 'series' | 'note' | 'legend'> {
  const same = (a: string, b: string) => columns.every((c) => values(a, c).every((v, i) => Object.is(v, values(b, c)[i])))
  const groups: string[][] = []
  for (const backend of backends) {
    const group = groups.find((g) => same(g[0], backend))
    if (group) group.push(backend)
    else groups.push([backend])
  }
  const several = groups.length > 1
  const series = columns.flatMap((column, color) =>
    groups.map((g, dash): ChartSeries => ({
      label: several ? `${column} · ${g.join(', ')}` : column,
      values: values(g[0], column),
      color,
      ...(several && { dash }),
    })),
  )
  const merged = groups.filter((g) => g.length > 1).map((g) => g.join(', '))
  const legend: LegendKey[] = [...columns.map((label, color) => ({ label, color })), ...groups.map((g, dash) => ({ label: g.join(', '), dash }))]
  return { series, ...(merged.length > 0 && { note: `identical for ${merged.join('; for ')}` }), ...(several && { legend }) }
}

/** Each backend's speedup over serial: the ratio of medians, whiskers from the slowest to the fastest ratio of single runs. */
function speedup(name: string, backends: string[], timings: Record<string, Timing>): ChartSpec | { reason: string } {
  const serial = timings.serial
  if (!backends.includes('serial')) return { reason: 'serial did not run; tick it to compare the other backends with it' }
  if (!serial) return { reason: 'no timings of serial for this file' }
  const timed = backends.filter((b) => timings[b])
  if (timed.length < 2) return { reason: 'only serial ran' }
  const bars = timed.map((b) => {
    const t = timings[b]
    return { label: b, value: serial.median / t.median, low: serial.min / t.max, high: serial.max / t.min, color: backends.indexOf(b) }
  })
  const lo = minOf(bars.map((b) => b.low))
  const hi = maxOf(bars.map((b) => b.high))
  return {
    kind: 'bars',
    data: {
      title: `Speedup over serial — ${name}`,
      note: `median of ${serial.runs} run${serial.runs === 1 ? '' : 's'}; whiskers: min–max over single runs`,
      xLabel: 'backend',
      yLabel: 'speedup over serial (×)',
      bars,
      // Speedups from well below 1 to well above: ratios read evenly on a log axis.
      logY: hi > 10 * lo,
    },
  }
}

/**
 * Every file's charts, named `<file stem>-time|speedup|cv|mad`; inputs sharing a name get numbered
 * stems. The speedup charts come from the envelope's timings.
 */
export function statsCharts(result: StatsResult, envelope?: ResultEnvelope<StatsResult>): NamedChart[] {
  const stems = result.files.map((f) => fileName(f.path).replace(/\.[^.]*$/, ''))
  return result.files.flatMap((file, i) => {
    const stem = stems.indexOf(stems[i]) === stems.lastIndexOf(stems[i]) ? stems[i] : `${i + 1}-${stems[i]}`
    const specs = statsChartSpecs(file, envelope && fileTimings(result, envelope.timings, file))
    return Object.entries(specs).flatMap(([chart, spec]) => ('kind' in spec ? [{ name: `${stem}-${chart}`, spec }] : []))
  })
}
