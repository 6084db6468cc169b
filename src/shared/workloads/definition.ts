// What a workload is, declared once in pure TypeScript: its parameters, phases, backends, example,
// and how its results become tables (CSV) and charts. Engines (src/main/workloads/<id>) run it;
// views (src/renderer/workloads/<id>) show it; the CLI, validation and forms derive from it.
import type { ChartSpec } from '../charts/spec'
import { COMPILING_KERNELS } from '../phases'
import type { ComparableRun } from './comparable'
import type { ResultEnvelope } from './envelope'
import type { ParamInput, ParamSchema } from './schema'

/** One table of results: the unit of CSV export. */
export interface ResultTable {
  /** File-name friendly, e.g. `results` → `results.csv`. */
  name: string
  columns: string[]
  rows: (string | number | boolean | null)[][]
  /**
   * One line on what the numbers mean, and on any NaN or infinity among them. Never inside the CSV
   * (a comment line breaks its readers): the dashboard shows it, `--out` lists it in results.json.
   */
  note?: string
}

/** A chart of the results with a file-name friendly name, e.g. `acc-time`. */
export interface NamedChart {
  name: string
  spec: ChartSpec
}

export interface Backend {
  id: string
  summary: string
  /** Variants of the backend (e.g. GPU kernels), each selectable and timed. */
  variants?: readonly string[]
}

export interface Phase {
  /** How progress events of this phase begin, e.g. `loading`. */
  id: string
  summary: string
}

/** The phase of a GPU backend's kernel compilation, before its timed runs: its time is reported apart (`compile_ms`). */
export const GPU_COMPILE_PHASE: Phase = { id: COMPILING_KERNELS, summary: 'the gpu backend\'s kernels, before its timed runs (their time is reported apart, as compile_ms)' }

export interface WorkloadExample {
  /** What the example shows, in one sentence. */
  summary: string
  /** Parameters besides the input files. */
  params: Record<string, unknown>
  /** Names of the input files the engine makes (seeded) on first use; none when the workload reads no files. */
  files: readonly string[]
}

export interface WorkloadDefinition<Id extends string = string, S extends ParamSchema = ParamSchema, R = unknown> {
  id: Id
  /** For navigation and headings, e.g. "Statistics". */
  title: string
  /** One line, for `paralab --help`, `paralab workloads` and tooltips. */
  summary: string
  params: S
  phases: readonly Phase[]
  backends: readonly Backend[]
  example: WorkloadExample & { params: Partial<ParamInput<S>> }
  tables(results: R): ResultTable[]
  /** `envelope`: the job's, for what a chart needs beyond the results (e.g. the timings). */
  charts(results: R, envelope?: ResultEnvelope<R>): NamedChart[]
  /** A job's timed runs for Compare: what each ran on, its work in the workload's unit, its result checks. */
  compared(envelope: ResultEnvelope<R>): ComparableRun[]
}

/** Declares a workload; `R` is its result type (the `results` of its envelope). */
export function defineWorkload<R>() {
  return <const Id extends string, const S extends ParamSchema>(d: WorkloadDefinition<Id, S, R>): WorkloadDefinition<Id, S, R> => d
}
