// The headline benchmark's arithmetic (`paralab bench headline`), apart from anything it runs: the
// order of alternated runs, medians and their noise, the comparison with the figures a release saved,
// and the table. Pure, so that it is tested without a GPU.

/** Nearest-rank median of a non-empty list (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

/**
 * The relative standard error of a median: 1.2533 σ / √n with σ estimated robustly by 1.4826 MAD
 * (the normal-theory factors), over the median. 0 for fewer than 2 samples: one run says nothing
 * about the noise, and `resolves` then refuses to call a change.
 */
export function medianNoise(values: readonly number[]): number {
  if (values.length < 2) return 0
  const m = median(values)
  const mad = median(values.map((v) => Math.abs(v - m)))
  // A MAD of 0 (e.g. half the runs identical) would claim no noise at all: the half-range then.
  const sigma = mad > 0 ? 1.4826 * mad : (Math.max(...values) - Math.min(...values)) / 2
  return (1.2533 * sigma) / Math.sqrt(values.length) / Math.abs(m)
}

export interface Series {
  samples: number[]
  median: number
  min: number
  max: number
  /** Relative standard error of the median (medianNoise). */
  noise: number
}

export function series(samples: readonly number[]): Series {
  return { samples: [...samples], median: median(samples), min: Math.min(...samples), max: Math.max(...samples), noise: medianNoise(samples) }
}

/**
 * The order of a round's runs: the list rotated by the round, so that over as many rounds as there
 * are runs each runs once in every position (no side always first, on a cold card, or last).
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const k = items.length === 0 ? 0 : round % items.length
  return [...items.slice(k), ...items.slice(0, k)]
}

/** Per-round ratios a ÷ b of two series measured in the same rounds (pairs where both ran). */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = []
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (Number.isFinite(a[i]) && Number.isFinite(b[i]) && b[i] > 0) out.push(a[i] / b[i])
  return out
}

/** One headline figure as measured: this build's series, and each baseline's, by name, in the same rounds. */
export interface FigureResult {
  id: string
  title: string
  /** What the series measure, e.g. 'ms'. Lower is better for every figure. */
  unit: string
  /** 'this' is this build; the others are baselines (another build, CUDA, PyTorch, the load alone …). */
  series: Record<string, Series>
  /** The baseline a saved figure is compared through (this ÷ it, per round), where the card's state may differ between calls. */
  normalizeBy?: string
  /** Another build alternated in the same rounds, whose series is named so. */
  release?: string
  notes: string[]
}

export interface HeadlineResult {
  /** The card (GPU adapter, or the CPU for --cpu) the figures were measured on. */
  card: string
  mode: 'gpu' | 'cpu'
  date: string
  commit?: string
  rounds: number
  figures: FigureResult[]
  notes: string[]
}

export interface Verdict {
  id: string
  /** Against what: another build in the same rounds, or the saved figure (raw or through a baseline). */
  against: 'same-call build' | 'saved' | 'saved, through baseline'
  /** Relative change of this build: +0.12 is 12 % slower. */
  change: number
  /** The change this comparison can tell from noise (Z × the combined noise, at least MIN_CHANGE). */
  threshold: number
  slower: boolean
  faster: boolean
  /** Whether a 10 % slowdown would exceed the threshold. */
  resolves10: boolean
}

/** How many standard errors a change must exceed; and below what change nothing is called. */
export const Z = 2.5
export const MIN_CHANGE = 0.03

function judge(id: string, against: Verdict['against'], now: number, before: number, noiseNow: number, noiseBefore: number): Verdict {
  const change = now / before - 1
  // No noise measured on a side (one run) leaves the comparison unable to tell anything.
  const measured = noiseNow > 0 && noiseBefore > 0
  const threshold = measured ? Math.max(MIN_CHANGE, Z * Math.hypot(noiseNow, noiseBefore)) : Infinity
  return { id, against, change, threshold, slower: change > threshold, faster: change < -threshold, resolves10: threshold < 0.1 }
}

/** The series of this build's figure as compared with a saved one: through its baseline (per-round ratios) when both runs have it. */
function comparable(f: FigureResult, by: string | undefined): number[] | undefined {
  const self = f.series.this
  if (!self) return undefined
  if (by === undefined) return self.samples.filter(Number.isFinite)
  const base = f.series[by]
  return base ? pairedRatios(self.samples, base.samples) : undefined
}

/**
 * Every verdict: this build against the build alternated with it (the surest: same card, same
 * call), and against the figures saved by the last release when they were taken on the same card —
 * through the same-call baseline where both runs have one, since one build's figures swing from
 * call to call with the card's state, else directly.
 */
export function verdicts(current: HeadlineResult, saved?: HeadlineResult): Verdict[] {
  const out: Verdict[] = []
  for (const f of current.figures) {
    const self = f.series.this
    if (!self || !Number.isFinite(self.median)) continue
    const rel = f.release ? f.series[f.release] : undefined
    if (rel && Number.isFinite(rel.median)) out.push(judge(f.id, 'same-call build', self.median, rel.median, self.noise, rel.noise))
    if (!saved || saved.card !== current.card || saved.mode !== current.mode) continue
    const old = saved.figures.find((g) => g.id === f.id)
    if (!old?.series.this) continue
    const by = f.normalizeBy && old.series[f.normalizeBy] && f.series[f.normalizeBy] ? f.normalizeBy : undefined
    const a = comparable(f, by)
    const b = comparable(old, by)
    if (!a?.length || !b?.length) continue
    out.push(judge(f.id, by ? 'saved, through baseline' : 'saved', median(a), median(b), medianNoise(a), medianNoise(b)))
  }
  return out
}

/** The figures found slower, each named with its change and threshold: the command fails on any. */
export function slowdowns(list: readonly Verdict[]): string[] {
  return list.filter((v) => v.slower).map((v) => `${v.id}: ${pct(v.change)} against the ${v.against} (noise threshold ${pct(v.threshold, false)})`)
}

function pct(x: number, sign = true): string {
  if (!Number.isFinite(x)) return 'n/a'
  return `${sign && x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return 'n/a'
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)
}

/** A series as "median (min–max, ±noise %, n)". */
export function describeSeries(s: Series, unit: string): string {
  return `${fmt(s.median)} ${unit} (${fmt(s.min)}–${fmt(s.max)}, ±${(s.noise * 100).toFixed(1)} %, n ${s.samples.length})`
}

/**
 * The headline table (Markdown, as docs/benchmarks.md leads with it): per figure this build, each
 * same-call series and the ratio to it, the saved figure, and the verdicts.
 */
export function headlineTable(current: HeadlineResult, saved: HeadlineResult | undefined, list: readonly Verdict[]): string {
  const lines = [
    `Card: ${current.card}; ${current.rounds} alternated rounds; ${current.date}${current.commit ? `, commit ${current.commit}` : ''}.`,
    saved
      ? saved.card === current.card && saved.mode === current.mode
        ? `Saved figures: ${saved.date}${saved.commit ? `, commit ${saved.commit}` : ''} on the same card.`
        : `Saved figures are from ${saved.card} (${saved.mode}): not compared.`
      : 'No saved figures to compare with.',
    '',
    '| figure | this build: median (min–max, ±noise, runs) | same card, same call | saved | verdict |',
    '| --- | --- | --- | --- | --- |',
  ]
  for (const f of current.figures) {
    const self = f.series.this
    const others = Object.entries(f.series)
      .filter(([k]) => k !== 'this')
      .map(([k, s]) => `${k} ${describeSeries(s, f.unit)}${self ? `; ${fmt(self.median / s.median)}×` : ''}`)
    const old = saved?.card === current.card ? saved.figures.find((g) => g.id === f.id)?.series.this : undefined
    const mine = list.filter((v) => v.id === f.id)
    const verdict = mine.length
      ? mine.map((v) => `${v.slower ? '**SLOWER**' : v.faster ? 'faster' : 'level'} ${pct(v.change)} vs ${v.against} (±${pct(v.threshold, false)}${v.resolves10 ? '' : '; cannot resolve 10 %'})`).join('; ')
      : '—'
    lines.push(`| ${f.title} | ${self ? describeSeries(self, f.unit) : 'not run'} | ${others.join('<br>') || '—'} | ${old ? `${fmt(old.median)} ${f.unit}` : '—'} | ${verdict} |`)
  }
  const notes = [...current.notes, ...current.figures.flatMap((f) => f.notes.map((n) => `${f.id}: ${n}`))]
  return lines.concat(notes.length ? ['', ...notes.map((n) => `- ${n}`)] : []).join('\n') + '\n'
}
