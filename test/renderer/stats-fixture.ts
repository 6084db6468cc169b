// A small StatsResult as the backend would send it, computed here from a few values per column, and
// the envelope a stats job's 'done' event carries it in.
import { statsWorkload, type StatsParams } from '../../src/shared/workloads/stats'
import { validateParams } from '../../src/shared/workloads/schema'
import type { BackendRun, BatchPoint, ColumnStats, StatsBackend, StatsFileResult, StatsResult } from '../../src/shared/workloads/stats/types'
import { timingOf, type ResultEnvelope } from '../../src/shared/workloads/envelope'
import { envelopeOf } from './envelope'

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
  return { files, failed: [], skipped: [] }
}

/** The envelope of a stats job that produced `result`: parameters and timings as the backend derives them. */
export function statsEnvelope(result: StatsResult, params: Partial<StatsParams> = {}): ResultEnvelope<StatsResult, StatsParams> {
  const backends = [...new Set(result.files.flatMap((f) => Object.keys(f.backends)))] as StatsBackend[]
  // Validated as the backend validates a request, so every parameter of the schema is there.
  const full = validateParams('stats', statsWorkload.params, {
    // A job always had input files, even when none of them could be analysed.
    files: result.files.length ? result.files.map((f) => f.path) : ['/data/unreadable.csv'],
    backends: backends.length ? backends : undefined,
    precision: result.files[0]?.backends[backends[0]]?.precision,
    batches: result.files[0]?.batches.length || undefined,
    ...params,
  })
  const timings = Object.fromEntries(backends.map((b) => [b, timingOf(result.files.flatMap((f) => f.backends[b]?.compute_ms ?? []))]))
  const files = result.files.map((f) => ({ path: f.path, bytes: f.bytes, modified: '2025-01-01T00:00:00.000Z' }))
  const device = backends.includes('gpu') ? { adapter: 'SwiftShader Device (Subzero)', vendor: 'google', backend: 'WebGPU (Dawn) on Vulkan, SwiftShader', software: true } : undefined
  return envelopeOf('stats', full, result, { files, timings, device })
}
