// A landslide job for Compare: each backend and GPU kernel on its grids, its work the steps, its
// checks the final grid's md5, mass (Σh), debris volume and (GPU) deviation from the f64 run.
import { checkValue, type ComparableRun } from '../comparable'
import type { ResultEnvelope } from '../envelope'
import type { LandslideResult } from './types'

export function landslideCompared(envelope: ResultEnvelope<LandslideResult>): ComparableRun[] {
  const { grid, steps, runs } = envelope.results
  const input = [grid.files.header, grid.files.dem, grid.files.source].filter(Boolean).join(', ')
  const repeat = (envelope.params as { repeat?: number } | undefined)?.repeat ?? 1
  return Object.entries(runs).map(([key, run]) => ({
    input,
    backend: run.backend,
    variant: run.variant ?? '',
    timing: envelope.timings[key] ?? { median: run.ms, min: run.ms_min, max: run.ms_max, runs: repeat },
    work: { count: steps, unit: 'step' },
    ...(run.compile_ms !== undefined && { compile_ms: run.compile_ms }),
    checks: [
      { name: 'arithmetic', value: run.precision },
      ...(run.md5 ? [{ name: 'md5', value: run.md5 }] : []),
      { name: 'mass', value: checkValue(run.mass_end, 10) },
      ...(run.volume_end !== undefined ? [{ name: 'volume', value: `${checkValue(run.volume_end, 10)} m³` }] : []),
      ...(run.deviation ? [{ name: 'max |Δh|', value: `${checkValue(run.deviation.max_abs, 3)} m` }] : []),
    ],
  }))
}
