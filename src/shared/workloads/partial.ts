// What a partial run's exports say about it. A cancelled job, or a cluster run with tasks that did
// not complete, keeps what finished; every file made from it says it is partial and names what is
// missing: charts in the line under their title, file names with "-partial", the envelope (JSON)
// in `partial` and `missing`. A CSV holds no note line (its readers would take it for data).
import type { ChartSpec } from '../charts/spec'
import type { ResultEnvelope } from './envelope'

type Partial = Pick<ResultEnvelope, 'partial' | 'missing'>

/** "Partial: cancelled; missing gpu, simd", or undefined for a whole run. */
export function partialNote(env: Partial | null | undefined): string | undefined {
  if (!env?.partial) return undefined
  const missing = env.missing?.length ? `missing ${env.missing.join(', ')}` : 'some runs did not finish'
  return `Partial: ${missing}`
}

/** `name.ext` as `name-partial.ext` for a partial run's file (once). */
export function partialFileName(name: string, env: Partial | null | undefined): string {
  if (!env?.partial) return name
  const dot = name.lastIndexOf('.')
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, '']
  return stem.endsWith('-partial') ? name : `${stem}-partial${ext}`
}

/** The chart with the partial note first in the line under its title. */
export function markedPartial(spec: ChartSpec, env: Partial | null | undefined): ChartSpec {
  const note = partialNote(env)
  if (!note) return spec
  const data = spec.data as { note?: string }
  if (data.note?.startsWith(note)) return spec
  return { ...spec, data: { ...spec.data, note: [note, data.note].filter(Boolean).join('; ') } } as ChartSpec
}

/** A row's status for an input whose run did not finish: cancelled (or timed out, or preempted), or failed. */
export function failureStatus(error: { code: string }): 'cancelled' | 'failed' {
  return error.code === 'cancelled' ? 'cancelled' : 'failed'
}
