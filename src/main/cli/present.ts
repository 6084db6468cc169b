// How a finished run reads on the terminal, the same for a local run and a merged cluster run:
// the workload's description of its results and the tables' notes on stdout (or the envelope as
// JSON), what went wrong on stderr; the exit code says whether anything did.
import type { ResultTable } from '../../shared/workloads/definition'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { tableNotes } from '../../shared/workloads/tables'
import type { AnyEngine } from '../engine'
import { writeJson } from '../terminal/command'

/** What the result tables' numbers mean (and any NaN or infinity among them), under the tables the terminal shows. */
function notesText(tables: ResultTable[]): string {
  const notes = Object.values(tableNotes(tables))
  return notes.length ? `\nNotes\n${[...new Set(notes)].map((n) => `  ${n}`).join('\n')}\n` : ''
}

/** The results for people (without the JSON). */
export function describeRun(engine: AnyEngine, env: ResultEnvelope): string {
  return (engine.cli.describe as (r: unknown, e: ResultEnvelope) => string)(env.results, env) + notesText(engine.definition.tables(env.results as never))
}

/** The failures the workload finds in a finished run's results (e.g. files that could not be read). */
export function runFailures(engine: AnyEngine, env: ResultEnvelope): string[] {
  return (engine.cli.failures as ((r: unknown) => string[]) | undefined)?.(env.results) ?? []
}

/** Prints a finished run; returns its exit code (1 when the workload names failures). */
export function presentRun(engine: AnyEngine, env: ResultEnvelope, json: boolean): number {
  if (json) writeJson(env)
  else process.stdout.write(describeRun(engine, env))
  const failures = runFailures(engine, env)
  for (const f of failures) process.stderr.write(`paralab: ${f}\n`)
  return failures.length ? 1 : 0
}
