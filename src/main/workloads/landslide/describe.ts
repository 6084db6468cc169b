// How landslide results read on a terminal: the grid, the reference run's md5 and mass, then one
// line per backend or GPU kernel with its time, speedup over serial, its md5 check (f64 and
// double-float runs) and its deviation (GPU runs).
import type { ResultEnvelope } from '../../../shared/workloads/envelope'
import { crsText, type LandslideResult, type LandslideRun } from '../../../shared/workloads/landslide/types'
import { framesNote } from '../../../shared/workloads/landslide/sampling'
import { maxOf } from '../../../shared/extent'
import { describePlacement, type GpuPlacement } from '../../../shared/gpu-placement'

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => maxOf(rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n') + '\n'
}

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(0))

function check(run: LandslideRun, referenceMd5: string): string {
  const parts: string[] = []
  if (run.md5 !== undefined) parts.push(run.deviation ? `md5 ${run.md5 === referenceMd5 ? 'same' : 'differs'}` : `${run.md5}${run.md5 === referenceMd5 ? '' : '  DIFFERS'}`)
  const d = run.deviation
  if (d) parts.push(`max |Δh| ${d.max_abs.toExponential(2)} m, ${d.cells_over_1mm} cells > 1 mm, Δmass ${d.mass_error.toExponential(2)}`)
  return parts.join(', ')
}

export function describeLandslide(r: LandslideResult, envelope?: ResultEnvelope<LandslideResult>): string {
  const g = r.grid
  const files = [g.files.header, g.files.dem, g.files.source].filter(Boolean).join(', ')
  const asked = (envelope?.params as { steps?: number } | undefined)?.steps
  const ref = r.reference
  const tiled = g.tile ? ` tiled ${g.tile.rows} × ${g.tile.cols}` : ''
  let out = `\n${files}${tiled}: ${g.rows} × ${g.cols} cells (rows × columns) of ${g.cellsize} m, ${g.walls} walls (NODATA); CRS ${crsText(g.crs)}\n`
  out += `${r.steps} steps${asked !== undefined && asked !== r.steps ? ` (cancelled: ${r.steps} of the ${asked} asked for)` : ''}; reference ${ref.backend} (f64): md5 ${ref.md5}, Σh, m ${ref.mass_start.toPrecision(10)} → ${ref.mass_end.toPrecision(10)}`
  if (ref.volume_start !== undefined && ref.volume_end !== undefined) out += `, volume, m³ ${ref.volume_start.toPrecision(10)} → ${ref.volume_end.toPrecision(10)}`
  out += '\n\n'
  const serial = r.runs.serial?.ms
  out += table([
    ['run', 'precision', 'ranks', 'ms', 'ms/step', 'vs serial', 'Σh end, m', 'volume end, m³', 'md5 / deviation'],
    ...Object.entries(r.runs).map(([key, run]) => [
      key,
      run.precision,
      run.ranks === undefined ? '' : String(run.ranks),
      ms(run.ms),
      run.ms_per_step.toPrecision(3),
      serial === undefined || run.ms === 0 ? '' : `${(serial / run.ms).toFixed(2)}×`,
      run.mass_end.toPrecision(8),
      run.volume_end === undefined ? '' : run.volume_end.toPrecision(8),
      check(run, r.reference.md5),
    ]),
  ])
  for (const [key, run] of Object.entries(r.runs))
    if (run.gpus_requested && run.gpus_observed)
      out += `\n${key}: ${run.gpus_requested.length} bands, halos exchanged every ${run.exchange_every} steps${run.gpus_note ? `; ${run.gpus_note}` : ''}\n${describePlacement(run as GpuPlacement)}\n`
  for (const [key, run] of Object.entries(r.runs)) if (run.compile_ms !== undefined) out += `\n${key}: kernels compiled in ${ms(run.compile_ms)} ms, before the timed runs\n`
  const thinned = framesNote(r)
  if (thinned) out += `\n${thinned}\n`
  for (const s of r.skipped) out += `\nskipped ${s.backend}: ${s.reason}\n`
  return out
}

/** Runs whose f64 output differs from the reference's: a failure of the CLI run (a GPU run's md5 only informs). */
export function landslideFailures(r: LandslideResult): string[] {
  return Object.entries(r.runs)
    .filter(([, run]) => run.precision === 'f64' && run.md5 !== undefined && run.md5 !== r.reference.md5)
    .map(([key, run]) => `${key}: md5 ${run.md5} differs from the reference's ${r.reference.md5}`)
}
