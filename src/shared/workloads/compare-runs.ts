// Runs of one workload side by side: each timed run matched by (input, backend, variant) across
// the jobs, its times compared as they are when the jobs did the same work, per unit of work when
// they did different amounts of it, not at all when their work cannot be set against each other;
// each run's result checks beside its times, and the parameters that differ between the jobs.
import type { ComparableRun } from './comparable'
import type { ResultEnvelope, Timing } from './envelope'
import { isWorkloadId, workload } from './index'
import { minOf } from '../extent'

/** How a row's runs are set against each other. */
export type Basis =
  /** They did the same work: their milliseconds compare. */
  | { kind: 'time' }
  /** They did different amounts of work in one unit: their milliseconds per unit compare. */
  | { kind: 'per-unit'; unit: string }
  | { kind: 'none'; reason: string }

export interface ComparedRow {
  /** `input: backend variant`, or without the input when the workload reads none. */
  key: string
  /** The input the runs are on; where the jobs read different inputs, theirs at this place joined by " vs ". */
  input: string
  /** The jobs ran on different inputs, lined up by their place in each job's inputs. */
  inputsDiffer?: boolean
  /** `backend variant`. */
  label: string
  /** Per job: its run, if it had one. */
  runs: (ComparableRun | undefined)[]
  basis: Basis
  /** Per job: the figures compared, in ms, or in ms per unit when the basis is per unit. */
  figures: (Timing | undefined)[]
  /** The job with the lowest median figure, when two or more runs compare. */
  best?: number
  /** Checks whose values differ between the jobs' runs. */
  differingChecks: string[]
}

export interface Comparison {
  rows: ComparedRow[]
  /** The parameters whose values differ between the jobs, with each job's value as text. */
  differing: { name: string; label: string; values: string[] }[]
}

export function compareRuns(envelopes: ResultEnvelope[]): Comparison {
  const id = envelopes[0]?.workload
  const def = isWorkloadId(id) ? workload(id) : undefined
  const perJob = envelopes.map((e) => (def ? (def.compared as (e: ResultEnvelope) => ComparableRun[])(e) : []))
  // An input of one job only (another file, another DEM) is lined up with the other jobs' inputs of
  // their own in the same place, so that runs on different inputs share rows instead of each filling
  // rows of its own with dashes. An input several jobs read keeps its own rows.
  const inputLists = perJob.map((runs) => [...new Set(runs.map((r) => r.input))])
  const count = new Map<string, number>()
  for (const l of inputLists) for (const input of l) count.set(input, (count.get(input) ?? 0) + 1)
  const own = inputLists.map((l) => l.filter((input) => count.get(input) === 1))
  const inputAt = (k: number) => [...new Set(own.map((l) => l[k]).filter((x) => x !== undefined))].join(' vs ')
  const inputOfRun = (j: number, run: ComparableRun) => (count.get(run.input) === 1 ? inputAt(own[j].indexOf(run.input)) : run.input)
  const keys: string[] = []
  const byKey = new Map<string, (ComparableRun | undefined)[]>()
  perJob.forEach((runs, j) => {
    for (const run of runs) {
      const key = rowKey({ ...run, input: inputOfRun(j, run) })
      if (!byKey.has(key)) {
        keys.push(key)
        byKey.set(key, new Array(envelopes.length).fill(undefined))
      }
      byKey.get(key)![j] = run
    }
  })
  // Grouped by input, each group and its rows in the order they first appear.
  const inputOf = (k: string) => {
    const runs = byKey.get(k)!
    const j = runs.findIndex(Boolean)
    return inputOfRun(j, runs[j]!)
  }
  const inputs = [...new Set(keys.map(inputOf))]
  const rows = inputs.flatMap((input) =>
    keys.filter((k) => inputOf(k) === input).map((k) => {
      const row = compareRow(k, byKey.get(k)!)
      return { ...row, input, ...(new Set(row.runs.flatMap((r) => (r ? [r.input] : []))).size > 1 && { inputsDiffer: true }) }
    }),
  )
  return { rows, differing: differingParams(envelopes) }
}

function rowKey(run: ComparableRun): string {
  const label = runLabel(run)
  return run.input ? `${run.input}: ${label}` : label
}

function runLabel(run: ComparableRun): string {
  return run.variant ? `${run.backend} ${run.variant}` : run.backend
}

function compareRow(key: string, runs: (ComparableRun | undefined)[]): ComparedRow {
  const present = runs.filter((r): r is ComparableRun => r !== undefined)
  const basis = basisOf(present)
  const figures = runs.map((r) => r && (basis.kind === 'per-unit' ? perUnit(r.timing, r.work.count) : r.timing))
  const medians = figures.map((f) => f?.median ?? Infinity)
  const best = basis.kind !== 'none' && present.length > 1 ? medians.indexOf(minOf(medians)) : undefined
  const names = [...new Set(present.flatMap((r) => r.checks.map((c) => c.name)))]
  const differingChecks = names.filter((n) => new Set(present.map((r) => r.checks.find((c) => c.name === n)?.value)).size > 1)
  return { key, input: present[0].input, label: runLabel(present[0]), runs, basis, figures, ...(best !== undefined && { best }), differingChecks }
}

function basisOf(runs: ComparableRun[]): Basis {
  const units = new Set(runs.map((r) => r.work.unit))
  if (units.size > 1) return { kind: 'none', reason: `their work is counted in different units (${[...units].join(', ')})` }
  const [unit] = units
  const counts = new Set(runs.map((r) => r.work.count))
  if (counts.size === 1) return { kind: 'time' }
  if (runs.some((r) => !(r.work.count > 0))) return { kind: 'none', reason: `one of them did no work (0 ${unit}s)` }
  return { kind: 'per-unit', unit }
}

function perUnit(t: Timing, count: number): Timing {
  return { median: t.median / count, min: t.min / count, max: t.max / count, runs: t.runs }
}

/** A unit of time for figures given in ms, chosen so that the smallest of them reads ≥ 1 where it can. */
export function timeUnit(ms: number[]): { unit: 's' | 'ms' | 'µs' | 'ns'; scale: number } {
  const least = minOf(ms.filter((v) => v > 0 && Number.isFinite(v)))
  if (!Number.isFinite(least) || (least >= 1 && least < 1000)) return { unit: 'ms', scale: 1 }
  if (least >= 1000) return { unit: 's', scale: 1e-3 }
  return least >= 1e-3 ? { unit: 'µs', scale: 1e3 } : { unit: 'ns', scale: 1e6 }
}

function differingParams(envelopes: ResultEnvelope[]): Comparison['differing'] {
  const params = envelopes.map((e) => (e.params ?? {}) as Record<string, unknown>)
  const names = [...new Set(params.flatMap((p) => Object.keys(p)))]
  const specs: Record<string, { label?: string }> = isWorkloadId(envelopes[0]?.workload) ? workload(envelopes[0].workload).params : {}
  return names
    .map((name) => ({ name, label: specs[name]?.label ?? name, values: params.map((p) => paramText(p[name])) }))
    .filter((d) => new Set(d.values).size > 1)
}

function paramText(v: unknown): string {
  if (v === undefined || v === null) return '—'
  if (Array.isArray(v)) return v.map(paramText).join(', ')
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}
