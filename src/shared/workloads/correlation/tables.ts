// Correlation results as tables (CSV): the ranking of every series, each backend's stage times
// and accuracy, each GPU kernel's, the histogram, the sweep and a picked pair.
import type { ResultTable } from '../definition'
import { noteWith } from '../tables'
import { type CorrelationResult, STAGES } from './types'

export function correlationTables(r: CorrelationResult): ResultTable[] {
  const tables: ResultTable[] = []
  if (r.runs.length)
    tables.push({
      name: 'runs',
      columns: ['backend', 'arithmetic', 'threads', ...STAGES.map((s) => `${s}_ms`), 'total_ms', 'total_min_ms', 'total_max_ms', 'upload_ms', 'download_ms', 'compile_ms', 'max_abs_dr'],
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
        run.compile_ms ?? null,
        run.max_abs_dr,
      ]),
      note: noteWith(
        `Each backend's time per stage in ms, median of the repeats (min and max of the total beside it); max_abs_dr: the largest |Δr| of any pair against the f64 reference (${r.reference ?? 'none'}).`,
        r.runs.map((run) => [run.max_abs_dr]),
        0,
        'max_abs_dr is ∞ (null in JSON) where a backend\'s r is NaN and the reference\'s a number, or the other way round.',
      ),
    })
  const variants = r.runs.flatMap((run) => (run.variants ?? []).map((v) => ({ run, v })))
  if (variants.length)
    tables.push({
      name: 'kernels',
      columns: ['backend', 'stage', 'variant', 'median_ms', 'min_ms', 'max_ms', 'flop', 'bytes', 'GFLOP_per_s', 'GB_per_s', 'deviation'],
      rows: variants.map(({ run, v }) => [run.backend, v.stage, v.variant, v.ms.median, v.ms.min, v.ms.max, v.flop, v.bytes, v.flop / v.ms.median / 1e6, v.bytes / v.ms.median / 1e6, v.deviation]),
      note: 'Each GPU kernel: time in ms over the repeats, its counted FLOPs and compulsory bytes per run and the rates they give; deviation: means the largest relative error of a mean, cross the max |Δr| of the matrix it led to, against f64.',
    })
  if (r.ranking.length)
    tables.push({
      name: 'ranking',
      columns: ['rank', 'name', 'index', 'mean_r', 'median_r', 'z', 'flagged'],
      rows: r.ranking.map((e, i) => [i + 1, e.name, e.index, e.meanR, e.medianR, e.z, e.flagged]),
      note: rankingNote(r),
    })
  if (r.histogram)
    tables.push({
      name: 'histogram',
      columns: ['r_from', 'r_to', 'pairs'],
      rows: r.histogram.counts.map((c, i) => [r.histogram!.edges[i], r.histogram!.edges[i + 1], c]),
      note: 'Pairs of distinct series (each pair once) whose r falls in [r_from, r_to); pairs with a constant series, whose r is undefined, are not counted.',
    })
  if (r.sweep)
    tables.push({
      name: 'sweep',
      columns: ['series', 'length', 'backend', 'total_ms'],
      rows: r.sweep.points.flatMap((p) => Object.entries(p.backends).map(([b, ms]) => [p.series, p.length, b, ms])),
      note: 'Each backend\'s time for all four stages in ms (median of the repeats) on the first `series` series cut to `length` samples.',
    })
  if (r.pair)
    tables.push({
      name: 'pair',
      columns: ['sample', r.pair.names[0], r.pair.names[1]],
      rows: r.pair.x.map((x, i) => [x, r.pair!.values[0][i], r.pair!.values[1][i]]),
      note: r.pair.step > 1 ? `The two series, the min and max of every ${r.pair.step} samples (the sample index of each).` : 'The two series, sample by sample.',
    })
  return tables
}

/** The median and the MAD of the series' mean r: what the robust z-scores are relative to. */
export function rankingCentre(ranking: CorrelationResult['ranking']): { median: number; mad: number } | null {
  const means = ranking.flatMap((e) => (e.meanR === null ? [] : [e.meanR])).sort((a, b) => a - b)
  if (means.length === 0) return null
  const median = medianSorted(means)
  return { median, mad: medianSorted(means.map((m) => Math.abs(m - median)).sort((a, b) => a - b)) }
}

function medianSorted(v: number[]): number {
  const k = v.length >> 1
  return v.length % 2 ? v[k] : (v[k - 1] + v[k]) / 2
}

const short = (v: number) => Number(v.toPrecision(4)).toString()

/**
 * The rule the flags follow, as results and charts state it: `z < −3.5, apart from the cluster's
 * tail by a gap of ×1.5`. Results from before the gap rule flagged every series below the threshold.
 */
export function flagRuleText(r: Pick<CorrelationResult, 'threshold' | 'gap'>): string {
  const below = `z < ${r.threshold}`
  return r.gap === undefined || r.gap <= 1 ? below : `${below}, apart from the cluster's tail by a gap of ×${r.gap}`
}

/** Series below the threshold left unflagged: the cluster's own tail, which no gap sets apart. */
export function unflaggedTail(r: Pick<CorrelationResult, 'threshold' | 'ranking'>): number {
  return r.ranking.filter((e) => e.z !== null && e.z < r.threshold && !e.flagged).length
}

/** The flags in a sentence: `3 flagged (z < −3.5, apart …); 120 more below −3.5 are the cluster's own tail`. */
export function flagSummary(r: Pick<CorrelationResult, 'threshold' | 'gap' | 'ranking'>, rule = true): string {
  const flagged = r.ranking.filter((e) => e.flagged).length
  const tail = unflaggedTail(r)
  return `${flagged} flagged${rule ? ` (${flagRuleText(r)})` : ''}${tail ? `; ${tail} more below ${r.threshold} are the cluster's own tail, not set apart by a gap (--gap 1 flags them too)` : ''}`
}

/** What z is relative to, and why it can be huge: a tight cluster has a tiny MAD of its means. */
function rankingNote(r: CorrelationResult): string {
  const c = rankingCentre(r.ranking)
  // The engine's fallback where more than half the means coincide (MAD 0): their mean absolute deviation.
  const relative = !c
    ? 'relative to the median mean r of all series in units of their MAD'
    : c.mad > 0
      ? `relative to the median mean r of all series (${short(c.median)}) in units of their MAD (${short(c.mad)})`
      : `relative to the median mean r of all series (${short(c.median)}); their MAD is 0, so 1.2533 × their mean absolute deviation stands in for it`
  const unscored = r.ranking.some((e) => e.z === null) ? ' Empty mean_r, median_r and z: a constant series, whose r with any other is undefined.' : ''
  return (
    `z: robust z-score of a series' mean r with all others, 0.6745 × (mean r − median) / MAD, ${relative}. ` +
    `flagged: ${flagRuleText(r)}${r.gap !== undefined && r.gap > 1 ? ` (walking out from the centre, the first series below ${r.threshold} whose z is at least ${r.gap} times that of the series before it, and every series beyond it; the cluster's own tail, however long, is not flagged)` : ''}: ${flagSummary(r, false)}. ` +
    `A tight cluster has a tiny MAD, so a disturbed series can lie thousands of MADs below it (z of −3,000 or less): the size says how far outside the cluster, not a probability.${unscored}`
  )
}
