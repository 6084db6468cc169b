// Statistics results as one table: a row per file × prefix × column × backend, the f64 reference
// rows marked `reference`.
import type { ResultTable } from '../definition'
import { noteWith } from '../tables'
import { CV_MEANINGFUL_UP_TO, cvUndefinedInPractice } from './cv-meaning'
import { failureStatus } from '../partial'
import type { StatsResult } from './types'

const COLUMNS = ['file', 'prefix_rows', 'column', 'backend', 'precision', 'n', 'missing', 'mean', 'std', 'cv', 'median', 'mad', 'compute_ms', 'upload_ms', 'compile_ms']

export function statsTables(result: StatsResult): ResultTable[] {
  const rows: ResultTable['rows'] = []
  for (const f of result.files) {
    for (const [col, s] of Object.entries(f.columns))
      rows.push([f.path, f.rows, col, 'reference', 'f64', s.n, s.missing, s.mean, s.std, s.cv, s.median, s.mad, null, null, null])
    for (const [backend, run] of Object.entries(f.backends))
      for (const [col, s] of Object.entries(run.columns))
        rows.push([f.path, f.rows, col, backend, run.precision, null, null, s.mean, s.std, s.cv, s.median, s.mad, run.compute_ms, run.upload_ms ?? null, run.compile_ms ?? null])
    for (const batch of f.batches)
      for (const [backend, b] of Object.entries(batch.backends))
        for (const [col, s] of Object.entries(b.columns))
          rows.push([f.path, batch.rows, col, backend, f.backends[backend]?.precision ?? null, null, null, null, null, s.cv, s.median, s.mad, b.compute_ms, null, null])
  }
  const files: ResultTable = {
    name: 'files',
    columns: ['file', 'status', 'rows', 'bytes', 'load_ms', 'error'],
    rows: [
      ...result.files.map((f) => [f.path, 'ok', f.rows, f.bytes, f.load_ms, null]),
      ...result.failed.map((f) => [f.path, failureStatus(f.error), null, null, null, f.error.message]),
    ],
  }
  const cv = COLUMNS.indexOf('cv')
  const median = COLUMNS.indexOf('median')
  const note = noteWith(
    noteWith(
      'A row per file, prefix, column and backend (reference: f64, exact); cv = std / mean (population σ over μ, no unit), mad = median of |x − median| (unscaled, in the unit of the data), times in ms.',
      rows,
      cv,
      'cv is NaN or ±∞ (null in JSON) where a column\'s mean is 0: σ/μ has no value there.',
    ),
    rows,
    median,
    'NaN everywhere in a row: the column held no numbers.',
  )
  const nearZero = rows.some((row) => cvUndefinedInPractice(row[cv] as number | null))
  const noted = nearZero ? `${note} |cv| > ${CV_MEANINGFUL_UP_TO} (a mean within a tenth of σ of 0) is undefined in practice: σ/μ then measures how near the mean is to zero, not the spread.` : note
  return [{ name: 'results', columns: COLUMNS, rows, note: noted }, { ...files, note: 'One row per input file: ok, or failed or cancelled with the error that stopped it (such a file has no results).' }]
}
