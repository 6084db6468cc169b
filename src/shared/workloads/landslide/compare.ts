// A landslide job for Compare: each backend and GPU kernel on its grids, its work the steps, its
// checks the final grid's md5, mass (Σh), debris volume and (GPU) deviation from the f64 run.
import { checkValue, type ComparableRun, type RunCost } from '../comparable'
import type { ResultEnvelope } from '../envelope'
import { cpuStepWork } from './cell-work'
import type { LandslideResult, LandslideRun } from './types'

const withCost = (cost: RunCost | undefined) => (cost ? { cost } : {})

/** All the steps of a run: a GPU run's counted kernel (its roofline point), a CPU run's f64 rows over its cells. */
function runCost(run: LandslideRun, r: LandslideResult): RunCost | undefined {
  if (run.backend !== 'gpu') {
    const step = cpuStepWork(run.backend, r.grid, r.series)
    return { flop: step.flop * r.steps, bytes: step.bytes * r.steps }
  }
  return run.roofline && { flop: run.roofline.flop_per_step * r.steps, bytes: run.roofline.bytes_per_step * r.steps }
}

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
    ...withCost(runCost(run, envelope.results)),
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
