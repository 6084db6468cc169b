// The landslide's charts: the reference run's mass drift, area and depth over the steps, and the
// time of every run, and the GPU kernels' measured points on a roofline. The thickness over the
// relief is drawn as frames (thickness-frame.ts), not as a chart.
import { formatNumber } from '../../charts/format'
import { kernelsRoofline } from '../../charts/roofline'
import type { ChartSpec, RoofData, RooflineKernel } from '../../charts/spec'
import type { NamedChart } from '../definition'
import type { DeviceSummary } from '../envelope'

/** What the charts need of a run's envelope: the adapter its GPU kernels ran on. */
type RunOn = { device?: Pick<DeviceSummary, 'adapter'> }
import { debrisVolume, type LandslideResult } from './types'
import { maxOf } from '../../extent'

function seriesChart(r: LandslideResult, title: string, yLabel: string, series: { label: string; values: number[] }[], note?: string): ChartSpec {
  return { kind: 'series', data: { title, xLabel: 'step', yLabel, x: r.series.step, series, ...(note && { note }) } }
}

/**
 * Mass conservation, the model's main check: the relative drift (Σh − Σh₀)/Σh₀ per sample, in units
 * of its own power of ten so the axis reads it, and the bound it stays within. Σh itself would put
 * the axis on rounding noise (ticks all reading 5,557).
 */
export function massDrift(mass: readonly number[]): { drift: number[]; bound: number; unit: number } | null {
  const m0 = mass[0]
  if (!(m0 !== undefined && Number.isFinite(m0) && m0 !== 0)) return null
  const drift = mass.map((m) => (m - m0) / m0)
  const worst = Math.max(0, maxOf(drift.map(Math.abs)))
  if (!Number.isFinite(worst)) return null
  const exponent = worst > 0 ? Math.floor(Math.log10(worst)) : 0
  return { drift, bound: worst > 0 ? 10 ** Math.ceil(Math.log10(worst)) : 0, unit: 10 ** exponent }
}

/** Relative drift up to which Σh counts as constant: far above f64 rounding over many steps, far below any real loss. */
const ROUNDING_DRIFT = 1e-9

function massChart(r: LandslideResult): ChartSpec {
  const title = `Mass conservation: relative drift of Σh (${r.reference.backend})`
  const d = massDrift(r.series.mass)
  if (!d) return seriesChart(r, `Total debris Σh (${r.reference.backend})`, 'Σh (m)', [{ label: 'Σh', values: r.series.mass }], 'Σh₀ = 0: no relative drift')
  const m0 = `Σh₀ = ${formatNumber(r.series.mass[0], 10)} m, a debris volume of ${formatNumber(debrisVolume(r.series.mass[0], r.grid.cellsize), 10)} m³`
  if (d.bound === 0) return seriesChart(r, title, '(Σh − Σh₀)/Σh₀', [{ label: 'drift', values: d.drift }], `${m0}; Σh is exactly constant`)
  const power = formatNumber(d.unit)
  const worst = formatNumber(maxOf(d.drift.map(Math.abs)), 3)
  // Drift at rounding level is conservation; beyond it, mass was gained or lost and the note says how much.
  const note = d.bound <= ROUNDING_DRIFT ? `${m0}; constant to ${formatNumber(d.bound)} (largest |drift| ${worst})` : `${m0}; Σh changed by up to ${worst} of Σh₀`
  return seriesChart(r, title, `(Σh − Σh₀)/Σh₀ (× ${power})`, [{ label: `drift (× ${power})`, values: d.drift.map((v) => v / d.unit) }], note)
}

/** Each GPU run's measured point, labelled by its key and arithmetic. */
export function kernelPoints(r: LandslideResult): RooflineKernel[] {
  return Object.entries(r.runs).flatMap(([key, run]) =>
    run.roofline ? [{ name: `${key} (${run.precision})`, intensity: run.roofline.intensity, performance: run.roofline.GFLOP_per_s }] : [],
  )
}

function rooflineChart(r: LandslideResult, envelope?: RunOn, roof?: RoofData | null): NamedChart | undefined {
  const spec = kernelsRoofline(kernelPoints(r), envelope?.device?.adapter, roof)
  return spec ? { name: 'roofline', spec } : undefined
}

/** `roof`: the device's measured ceilings, under which the GPU kernels are drawn when measured on their adapter. */
export function landslideCharts(r: LandslideResult, envelope?: RunOn, roof?: RoofData | null): NamedChart[] {
  const charts: NamedChart[] = []
  if (r.series.step.length) {
    const s = r.series
    charts.push(
      { name: 'mass', spec: massChart(r) },
      {
        name: 'area',
        spec: seriesChart(r, `Flooded and active cells (${r.reference.backend})`, 'cells', [
          { label: 'flooded (h > 1 mm)', values: s.flooded },
          { label: 'active (debris or bordering it)', values: s.active },
        ]),
      },
      { name: 'depth', spec: seriesChart(r, `Maximum thickness (${r.reference.backend})`, 'max h (m)', [{ label: 'max h', values: s.max_thickness }]) },
    )
  }
  // A run too short to time (0 steps) has no bar on a log scale.
  const runs = Object.entries(r.runs).filter(([, run]) => run.ms > 0)
  if (runs.length) {
    charts.push({
      name: 'time',
      spec: {
        kind: 'bars',
        data: {
          title: `Time for ${r.steps.toLocaleString('en-US')} steps`,
          note: 'median of the repeats, whiskers from the fastest to the slowest',
          xLabel: 'backend',
          yLabel: 'time (ms)',
          logY: true,
          bars: runs.map(([key, run], i) => ({ label: key, value: run.ms, low: run.ms_min, high: run.ms_max, color: i })),
        },
      },
    })
    const serial = r.runs.serial
    if (serial && serial.ms > 0 && runs.length > 1)
      charts.push({
        name: 'speedup',
        spec: {
          kind: 'bars',
          data: {
            title: 'Speedup over serial',
            xLabel: 'backend',
            yLabel: 'speedup over serial (×)',
            logY: true,
            bars: runs.map(([key, run], i) => ({ label: key, value: serial.ms / run.ms, color: i })),
          },
        },
      })
  }
  const roofline = rooflineChart(r, envelope, roof)
  if (roofline) charts.push(roofline)
  return charts
}
