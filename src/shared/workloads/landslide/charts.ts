// The landslide's charts: the reference run's mass, area and depth over the steps, and the time of
// every run, and the GPU kernels' measured points on a roofline. The thickness over the relief is
// drawn as frames (thickness-frame.ts), not as a chart.
import { kernelsRoofline } from '../../charts/roofline'
import type { ChartSpec, RooflineKernel } from '../../charts/spec'
import type { NamedChart } from '../definition'
import type { ResultEnvelope } from '../envelope'
import type { LandslideResult } from './types'

function seriesChart(r: LandslideResult, title: string, yLabel: string, series: { label: string; values: number[] }[]): ChartSpec {
  return { kind: 'series', data: { title, xLabel: 'step', yLabel, x: r.series.step, series } }
}

/** Each GPU run's measured point, labelled by its key and arithmetic. */
export function kernelPoints(r: LandslideResult): RooflineKernel[] {
  return Object.entries(r.runs).flatMap(([key, run]) =>
    run.roofline ? [{ name: `${key} (${run.precision})`, intensity: run.roofline.intensity, performance: run.roofline.GFLOP_per_s }] : [],
  )
}

function rooflineChart(r: LandslideResult, envelope?: ResultEnvelope<LandslideResult>): NamedChart | undefined {
  const spec = kernelsRoofline(kernelPoints(r), envelope?.device?.adapter)
  return spec ? { name: 'roofline', spec } : undefined
}

export function landslideCharts(r: LandslideResult, envelope?: ResultEnvelope<LandslideResult>): NamedChart[] {
  const charts: NamedChart[] = []
  if (r.series.step.length) {
    const s = r.series
    charts.push(
      { name: 'mass', spec: seriesChart(r, `Total debris Σh (${r.reference.backend})`, 'Σh (m)', [{ label: 'Σh', values: s.mass }]) },
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
  const roofline = rooflineChart(r, envelope)
  if (roofline) charts.push(roofline)
  return charts
}
