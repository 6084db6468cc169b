// The newest correlation job's loaded series, kept in the backend for the pair overlays its heatmap
// asks for: a click then costs a lookup instead of reading the file again. One file at a time,
// valid while its size and modification time are unchanged (and for the same layout, columns and
// precision), and only up to MAX_KEPT_BYTES of values, so a huge matrix is not held after its job.
import { stat } from 'node:fs/promises'
import type { Layout, Precision } from '../../../shared/workloads/correlation/types'
import type { LoadedSeries } from './load-series'

export const MAX_KEPT_BYTES = 2 ** 30

let kept: { key: string; loaded: LoadedSeries } | null = null

/** How the series were read: the same file read another way gives other series. */
type How = { layout: Layout; precision: Precision; columns?: string[]; dataset?: string; names?: string }

async function keyOf(path: string, how: How): Promise<string | null> {
  const s = await stat(path).catch(() => null)
  return s ? JSON.stringify([path, s.size, s.mtimeMs, how.layout, how.precision, how.columns ?? null, how.dataset ?? null, how.names ?? null]) : null
}

/** The series kept from `path` loaded this way, or null when none (or the file changed since). */
export async function keptSeries(path: string, how: How): Promise<LoadedSeries | null> {
  if (!kept) return null
  return kept.key === (await keyOf(path, how)) ? kept.loaded : null
}

/** Keeps `loaded` (read from `path`) in place of what was kept, or nothing when it is too large. */
export async function keepSeries(path: string, how: How, loaded: LoadedSeries): Promise<void> {
  kept = null
  const key = await keyOf(path, how)
  if (key && loaded.series.values.byteLength <= MAX_KEPT_BYTES) kept = { key, loaded }
}
