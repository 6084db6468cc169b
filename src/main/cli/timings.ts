// `--timings`: the spans a command recorded (timeline.ts), one line per stage: when it ran, how
// long it kept busy (overlapping spans of a stage counted once) and how much of that lay beside
// a file's load, where it cost no waiting.
import type { Span } from '../timeline'

export interface StageTiming {
  stage: string
  /** Spans of the stage. */
  count: number
  /** First start and last end, ms since the process's time origin. */
  from: number
  to: number
  /** Length of the union of its spans. */
  busy: number
  /** Part of `busy` during a load (absent for the loads themselves, or when nothing loaded). */
  besideLoad?: number
}

type Interval = [number, number]

/** Disjoint intervals covering the spans, in order. */
function union(spans: readonly Span[]): Interval[] {
  const out: Interval[] = []
  for (const { start, end } of [...spans].sort((a, b) => a.start - b.start)) {
    const last = out.at(-1)
    if (last && start <= last[1]) last[1] = Math.max(last[1], end)
    else out.push([start, end])
  }
  return out
}

const length = (iv: readonly Interval[]) => iv.reduce((sum, [a, b]) => sum + (b - a), 0)

/** Length of the intersection of two lists of disjoint, ordered intervals. */
function overlap(a: readonly Interval[], b: readonly Interval[]): number {
  let sum = 0
  let j = 0
  for (const [a0, a1] of a) {
    while (j < b.length && b[j][1] <= a0) j++
    for (let k = j; k < b.length && b[k][0] < a1; k++) sum += Math.max(0, Math.min(a1, b[k][1]) - Math.max(a0, b[k][0]))
  }
  return sum
}

/** The spans grouped by stage, in the order the stages began. */
export function stageTimings(spans: readonly Span[]): StageTiming[] {
  const loads = union(spans.filter((s) => s.load))
  const stages = new Map<string, Span[]>()
  for (const s of spans) stages.set(s.stage, [...(stages.get(s.stage) ?? []), s])
  return [...stages]
    .map(([stage, group]): StageTiming => {
      const u = union(group)
      const timing: StageTiming = { stage, count: group.length, from: u[0][0], to: Math.max(...u.map((i) => i[1])), busy: length(u) }
      if (loads.length && !group.some((s) => s.load)) timing.besideLoad = overlap(u, loads)
      return timing
    })
    .sort((a, b) => a.from - b.from)
}

/** The table `--timings` prints, ending with the whole process up to `now`. */
export function timingsText(spans: readonly Span[], now: number): string {
  const rows = stageTimings(spans)
  const ms = (x: number) => x.toFixed(0)
  const width = Math.max(24, ...rows.map((r) => r.stage.length + (r.count > 1 ? ` (${r.count})`.length : 0)))
  const head = `  ${'stage'.padEnd(width)} ${'from'.padStart(8)} ${'to'.padStart(8)} ${'busy'.padStart(8)} ${'beside load'.padStart(12)}`
  const line = (name: string, from: string, to: string, busy: string, beside: string) =>
    `  ${name.padEnd(width)} ${from.padStart(8)} ${to.padStart(8)} ${busy.padStart(8)} ${beside.padStart(12)}`
  return [
    'Timings (ms since the process started; busy: the stage\'s spans together, each moment counted once; beside load: the part of busy during a file\'s load)',
    head,
    ...rows.map((r) => line(r.count > 1 ? `${r.stage} (${r.count})` : r.stage, ms(r.from), ms(r.to), ms(r.busy), r.besideLoad === undefined ? '' : ms(r.besideLoad))),
    line('whole process, so far', '0', ms(now), ms(now), ''),
    '',
  ].join('\n')
}
