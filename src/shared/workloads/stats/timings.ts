// Which of a stats envelope's timings belong to one file. The engine keys them by backend when the
// job had one input file, and by "<file as given>: <backend>" when it had several.
import type { Timing } from '../envelope'
import type { StatsFileResult, StatsResult } from './types'

export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() || path
}

/** The file's timings by backend: milliseconds of each repeat on the whole columns, summed over them. */
export function fileTimings(result: StatsResult, timings: Record<string, Timing>, file: StatsFileResult): Record<string, Timing> {
  const single = result.files.length + result.failed.length === 1
  const out: Record<string, Timing> = {}
  for (const backend of Object.keys(file.backends)) {
    const t = timings[`${file.path}: ${backend}`] ?? (single ? timings[backend] : undefined)
    if (t) out[backend] = t
  }
  return out
}
