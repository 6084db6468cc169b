// A statistics job for Compare: each file's backends, timed on the whole columns, their work the
// values they read, their checks each column's CV and MAD.
import { checkValue, type ComparableRun, type RunCost } from '../comparable'
import type { ResultEnvelope } from '../envelope'
import { fileTimings } from './timings'
import type { StatsResult } from './types'

/**
 * CV and MAD of `values` values: a sum for the mean, a subtract and a multiply-add for the squared
 * deviation, a subtract for |x − median| (the selections compare keys: integer work, not counted);
 * each value read once, 8 bytes in f64 and 4 in f32.
 */
export function statsCost(values: number, precision: 'f64' | 'f32'): RunCost {
  return { flop: 5 * values, bytes: values * (precision === 'f64' ? 8 : 4) }
}

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
      cost: statsCost(values, file.backends[backend].precision),
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
