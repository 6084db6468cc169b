// Statistics results as JSON or CSV: one CSV row per file × prefix × column × backend, the
// f64 reference rows marked `reference`.
import type { StatsResult } from '../../../shared/workloads/stats/types'

const CSV_HEADER = ['file', 'prefix_rows', 'column', 'backend', 'precision', 'n', 'missing', 'mean', 'std', 'cv', 'median', 'mad', 'compute_ms', 'upload_ms']

export function formatResults(result: StatsResult, format: 'csv' | 'json'): string {
  return format === 'json' ? JSON.stringify(result, null, 2) + '\n' : resultsCsv(result)
}

function resultsCsv(result: StatsResult): string {
  const rows: unknown[][] = [CSV_HEADER]
  for (const f of result.files) {
    for (const [col, s] of Object.entries(f.columns))
      rows.push([f.path, f.rows, col, 'reference', 'f64', s.n, s.missing, s.mean, s.std, s.cv, s.median, s.mad, '', ''])
    for (const [backend, run] of Object.entries(f.backends))
      for (const [col, s] of Object.entries(run.columns))
        rows.push([f.path, f.rows, col, backend, run.precision, '', '', s.mean, s.std, s.cv, s.median, s.mad, run.compute_ms, run.upload_ms ?? ''])
    for (const batch of f.batches)
      for (const [backend, b] of Object.entries(batch.backends))
        for (const [col, s] of Object.entries(b.columns))
          rows.push([f.path, batch.rows, col, backend, f.backends[backend]?.precision ?? '', '', '', '', '', s.cv, s.median, s.mad, b.compute_ms, ''])
  }
  return rows.map((r) => r.map(csvField).join(',')).join('\n') + '\n'
}

function csvField(v: unknown): string {
  const s = String(v)
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}
