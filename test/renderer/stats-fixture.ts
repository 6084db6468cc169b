// A small StatsResult as the backend would send it, computed here from a few values per column.
import type { BackendRun, BatchPoint, ColumnStats, StatsFileResult, StatsResult } from '../../src/shared/workloads/stats/types'

function median(sorted: number[]): number {
  const m = sorted.length >> 1
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
}

export function columnStats(values: number[], missing = 0): ColumnStats {
  const n = values.length
  const mean = values.reduce((a, b) => a + b, 0) / n
  const std = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / n)
  const med = median([...values].sort((a, b) => a - b))
  const mad = median(values.map((v) => Math.abs(v - med)).sort((a, b) => a - b))
  return { n, missing, mean, std, cv: std / mean, median: med, mad }
}

/** Columns of `data` on `backends`; batches are prefixes of `prefixes` rows. Times are made up: the view only shows them. */
export function statsFile(path: string, data: Record<string, number[]>, backends: string[], prefixes: number[], precision: 'f64' | 'f32' = 'f64'): StatsFileResult {
  const names = Object.keys(data)
  const rows = data[names[0]].length
  const columns = Object.fromEntries(names.map((c) => [c, columnStats(data[c])]))
  const runs: Record<string, BackendRun> = Object.fromEntries(
    backends.map((b, i) => [
      b,
      {
        precision,
        compute_ms: 10 * (i + 1),
        ...(b === 'gpu' ? { upload_ms: 1.5 } : {}),
        columns: Object.fromEntries(
          names.map((c) => {
            const s = columnStats(data[c])
            return [c, { ...s, ...(precision === 'f32' ? { deviation: { cv_rel: 1e-7 * (i + 1), median_abs: 0, mad_abs: 2e-8 } } : {}) }]
          }),
        ),
      },
    ]),
  )
  const batches: BatchPoint[] = prefixes.map((p) => ({
    rows: p,
    backends: Object.fromEntries(
      backends.map((b, i) => [
        b,
        {
          compute_ms: (p / rows) * 10 * (i + 1),
          columns: Object.fromEntries(names.map((c) => {
            const s = columnStats(data[c].slice(0, p))
            return [c, { cv: s.cv, mad: s.mad, median: s.median }]
          })),
        },
      ]),
    ),
  }))
  return { path, rows, bytes: rows * 24, load_ms: 3.5, columns, backends: runs, batches }
}

export function statsResult(...files: StatsFileResult[]): StatsResult {
  return { files }
}
