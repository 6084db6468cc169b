// Landslide results as tables: one row per backend or GPU kernel (time, md5 or deviation, mass, and
// for GPU kernels the roofline point), and the reference run's series (mass, flooded and active
// cells, maximum thickness) per sample.
import type { ResultTable } from '../definition'
import { noteWith } from '../tables'
import { crsText, debrisVolume, type LandslideResult } from './types'

const RUN_COLUMNS = [
  'run',
  'backend',
  'variant',
  'precision',
  'ranks',
  'gpus_observed',
  'exchange_every',
  'steps',
  'ms',
  'ms_min',
  'ms_max',
  'ms_per_step',
  'compile_ms',
  'speedup_vs_serial',
  'md5',
  'matches_reference',
  'mass_end',
  'volume_end_m3',
  'max_abs_dh',
  'cells_over_1mm',
  'mass_error',
  'flop_per_byte',
  'GFLOP_per_s',
  'GB_per_s',
]

export function landslideTables(r: LandslideResult): ResultTable[] {
  const serial = r.runs.serial?.ms
  const runs: ResultTable = {
    name: 'runs',
    columns: RUN_COLUMNS,
    rows: Object.entries(r.runs).map(([key, run]) => [
      key,
      run.backend,
      run.variant ?? null,
      run.precision,
      run.ranks ?? null,
      run.gpus_observed ? run.gpus_observed.join(' ') : null,
      run.exchange_every ?? null,
      r.steps,
      run.ms,
      run.ms_min,
      run.ms_max,
      run.ms_per_step,
      run.compile_ms ?? null,
      serial === undefined || run.ms === 0 ? null : serial / run.ms,
      run.md5 ?? null,
      run.md5 === undefined ? null : run.md5 === r.reference.md5,
      run.mass_end,
      run.volume_end ?? null,
      run.deviation?.max_abs ?? null,
      run.deviation?.cells_over_1mm ?? null,
      run.deviation?.mass_error ?? null,
      run.roofline?.intensity ?? null,
      run.roofline?.GFLOP_per_s ?? null,
      run.roofline?.GB_per_s ?? null,
    ]),
  }
  runs.note = noteWith(
    `Each run of ${r.steps} steps: ms for all of them over the repeats; mass_end = Σh in m summed over the cells, volume_end_m3 = mass_end × the cell's area (${r.grid.cellsize} m × ${r.grid.cellsize} m; CRS ${crsText(r.grid.crs)}); md5 of the final grid as the reference program prints it (${r.reference.backend}'s is the reference); GPU runs: max |Δh| in m, cells off by over 1 mm and Σh − Σh(f64) in m against the f64 grid, and the kernel's roofline point; gpus_observed: the GPU each band or rank was seen computing on (the driver's account, or \'not observed\'), never the one asked for.`,
    runs.rows,
    RUN_COLUMNS.indexOf('max_abs_dh'),
    'Empty cells mean the column does not apply to the run (CPU runs have no deviation); max_abs_dh ∞ (null in JSON): a GPU cell became NaN.',
  )
  const s = r.series
  const series: ResultTable = {
    name: 'series',
    columns: ['step', 'mass', 'volume_m3', 'flooded_cells', 'max_thickness_m', 'active_cells'],
    rows: s.step.map((step, i) => [step, s.mass[i], debrisVolume(s.mass[i], r.grid.cellsize), s.flooded[i], s.max_thickness[i], s.active[i]]),
    note: `The reference run (${r.reference.backend}, f64) every few steps: mass = Σh in m summed over the cells (conserved but for rounding), volume_m3 = mass × the cell's area (${r.grid.cellsize}² m²), flooded cells with h > 1 mm, the deepest debris in m, and the cells holding debris or bordering it.`,
  }
  return [runs, series]
}
