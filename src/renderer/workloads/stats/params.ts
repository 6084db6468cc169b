// The Statistics form → StatsParams, with the reason when it cannot run yet.
import { DEFAULT_STATS_COLUMNS, STATS_BACKENDS, type Precision, type StatsBackend, type StatsParams } from '../../../shared/workloads/stats/types'

export interface StatsForm {
  /** Chosen file paths. */
  files: string[]
  /** Comma-separated column names, as typed. */
  columns: string
  backends: StatsBackend[]
  precision: Precision
  repeat: number | string
  batches: number | string
}

export const DEFAULT_COLUMNS_TEXT = DEFAULT_STATS_COLUMNS.join(', ')

export function parseColumns(text: string): string[] {
  const names = text.split(',').map((c) => c.trim()).filter((c) => c !== '')
  return [...new Set(names)]
}

/** Why the form cannot run, or null when it can. */
export function formProblem(form: StatsForm): string | null {
  if (form.files.length === 0) return 'Choose at least one file.'
  if (form.backends.length === 0) return 'Choose at least one backend.'
  for (const [name, value] of [['Repeat', form.repeat], ['Batches', form.batches]] as const) {
    const n = Number(value)
    if (value === '' || !Number.isInteger(n) || n < 1) return `${name} must be a whole number ≥ 1 (got ${JSON.stringify(value)}).`
  }
  return null
}

export function statsParams(form: StatsForm): StatsParams {
  const problem = formProblem(form)
  if (problem) throw new Error(problem)
  const columns = parseColumns(form.columns)
  return {
    files: [...form.files],
    // An empty field lets the backend choose its default columns.
    ...(columns.length ? { columns } : {}),
    // Backends in their canonical order, whatever order they were ticked in.
    backends: STATS_BACKENDS.filter((b) => form.backends.includes(b)),
    precision: form.precision,
    repeat: Number(form.repeat),
    batches: Number(form.batches),
  }
}
