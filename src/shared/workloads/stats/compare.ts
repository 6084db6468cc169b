// A statistics job for Compare: each file's backends, timed on the whole columns, their work the
// values they read, their checks each column's CV and MAD.
import { checkValue, type ComparableRun } from '../comparable'
import type { ResultEnvelope } from '../envelope'
import { fileTimings } from './timings'
import type { StatsResult } from './types'

export function statsCompared(envelope: ResultEnvelope<StatsResult>): ComparableRun[] {
  const result = envelope.results
  return result.files.flatMap((file) => {
    const timings = fileTimings(result, envelope.timings, file)
    const values = file.rows * Object.keys(file.columns).length
    return Object.entries(timings).map(([backend, timing]) => ({
      input: file.path,
      backend,
      variant: '',
      timing,
      work: { count: values, unit: 'value' },
      ...(file.backends[backend].compile_ms !== undefined && { compile_ms: file.backends[backend].compile_ms }),
      checks: [
        { name: 'precision', value: file.backends[backend].precision },
        ...Object.entries(file.backends[backend].columns).flatMap(([c, s]) => [
          { name: `${c} CV`, value: checkValue(s.cv) },
          { name: `${c} MAD`, value: checkValue(s.mad) },
        ]),
      ],
    }))
  })
}
