// How statistics results read on a terminal: per file, the f64 reference and each backend's
// time and results; several files end with a summary table.
import type { StatsResult } from '../../../shared/workloads/stats/types'

const num = (v: number, digits = 6) => (Number.isInteger(v) ? String(v) : v.toPrecision(digits))

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n') + '\n'
}

export function describeStats(result: StatsResult): string {
  let out = ''
  for (const f of result.files) {
    out += `\n${f.path}: ${f.rows} rows, ${(f.bytes / 1e6).toFixed(1)} MB, loaded in ${f.load_ms.toFixed(0)} ms\n`
    out += table([
      ['column', 'n', 'missing', 'mean', 'std', 'CV', 'median', 'MAD'],
      ...Object.entries(f.columns).map(([c, s]) => [c, String(s.n), String(s.missing), num(s.mean), num(s.std), num(s.cv), num(s.median), num(s.mad)]),
    ])
    const cols = Object.keys(f.columns)
    out += '\n' + table([
      ['backend', 'precision', 'compute ms', 'upload ms', ...cols.flatMap((c) => [`CV ${c}`, `MAD ${c}`])],
      ...Object.entries(f.backends).map(([b, r]) => [
        b,
        r.precision,
        r.compute_ms.toFixed(2),
        r.upload_ms === undefined ? '' : r.upload_ms.toFixed(2),
        ...cols.flatMap((c) => [num(r.columns[c].cv), num(r.columns[c].mad)]),
      ]),
    ])
  }
  if (result.files.length > 1) {
    const cols = Object.keys(result.files[0].columns)
    out += '\nSummary (f64 reference)\n' + table([
      ['file', ...cols.flatMap((c) => [`MAD ${c}`, `CV ${c}`])],
      ...result.files.map((f) => [f.path.split(/[\\/]/).pop()!, ...cols.flatMap((c) => (f.columns[c] ? [num(f.columns[c].mad), num(f.columns[c].cv, 5)] : ['', '']))]),
    ])
  }
  return out
}
