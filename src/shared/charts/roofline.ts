// The roofline model: attainable GFLOP/s = min(peak, bandwidth × arithmetic intensity), on log-log
// axes, with the ridge point where the two limits meet and measured kernels placed under the roof.
// Without the device's ceilings (not measured) the kernels' points are drawn alone, on the same axes.
import type { ChartConfiguration, ChartDataset } from 'chart.js'
import { ApiError } from '../errors'
import { adapterName, type DeviceBenchResult } from '../device'
import { type ChartConfigOptions, axis, decadeAbove, decadeBelow, frameOptions } from './common'
import { formatNumber } from './format'
import type { ChartSpec, RoofData, RooflineData, RooflineKernel } from './spec'
import { ROOF_COLOR, seriesColor, seriesPointStyle } from './theme'
import { maxOf, minOf } from '../extent'

/** Samples per decade of intensity: the roof is straight on log-log axes, these serve hover and tests. */
const SAMPLES_PER_DECADE = 8

/** The roof from what `bench device` measured. */
export function rooflineFromBench(bench: DeviceBenchResult, kernels?: RooflineKernel[]): RoofData {
  return {
    adapter: adapterName(bench.adapter),
    peak_GFLOP_per_s: bench.fma_f32_GFLOP_per_s,
    bandwidth_GB_per_s: bench.read_bandwidth_GB_per_s,
    ...(kernels ? { kernels } : {}),
  }
}

/**
 * A job's own GPU kernels on a roofline: under `roof` when it was measured on the adapter they ran
 * on (a roof of another GPU would mislead), else their points alone. A job measures no ceilings:
 * the caller hands in the newest measurement it holds for that adapter (the dashboard's history).
 */
export function kernelsRoofline(kernels: RooflineKernel[], adapter: string | undefined, roof?: RoofData | null): ChartSpec | null {
  if (!kernels.length) return null
  if (roof && adapter !== undefined && roof.adapter === adapter)
    return { kind: 'roofline', data: { adapter, peak_GFLOP_per_s: roof.peak_GFLOP_per_s, bandwidth_GB_per_s: roof.bandwidth_GB_per_s, kernels } }
  return { kind: 'roofline', data: { adapter: adapter ?? 'GPU kernels', kernels } }
}

/** Whether the chart has ceilings to draw. */
export function hasRoof(data: RooflineData): data is RoofData {
  return data.peak_GFLOP_per_s !== undefined && data.bandwidth_GB_per_s !== undefined
}

/** Attainable GFLOP/s at `intensity` FLOP/byte. */
export function roofAt(data: RoofData, intensity: number): number {
  return Math.min(data.peak_GFLOP_per_s, data.bandwidth_GB_per_s * intensity)
}

/** FLOP/byte where memory bandwidth stops limiting and peak compute starts. */
export function ridgePoint(data: RoofData): number {
  return data.peak_GFLOP_per_s / data.bandwidth_GB_per_s
}

export interface RooflineModel {
  /** Absent without ceilings, as is the roof (then empty). */
  ridge?: number
  /** Intensity range of the x axis: whole decades around the ridge and every kernel. */
  xMin: number
  xMax: number
  yMin: number
  yMax: number
  /** The roof sampled log-uniformly over [xMin, xMax], the ridge point included exactly. */
  roof: { x: number; y: number }[]
}

export function rooflineModel(data: RooflineData): RooflineModel {
  validate(data)
  const kernels = data.kernels ?? []
  const xs = kernels.map((k) => k.intensity)
  if (!hasRoof(data)) {
    const ys = kernels.map((k) => k.performance)
    return {
      xMin: decadeBelow(minOf(xs) / 2),
      xMax: decadeAbove(maxOf(xs) * 2),
      yMin: decadeBelow(minOf(ys) / 2),
      yMax: decadeAbove(maxOf(ys) * 1.5),
      roof: [],
    }
  }
  const ridge = ridgePoint(data)
  const xMin = decadeBelow(Math.min(ridge / 100, minOf(xs) / 2))
  const xMax = decadeAbove(Math.max(ridge * 100, maxOf(xs) * 2))
  const yMin = decadeBelow(Math.min(roofAt(data, xMin), minOf(kernels.map((k) => k.performance)) / 2))
  const yMax = decadeAbove(Math.max(data.peak_GFLOP_per_s, maxOf(kernels.map((k) => k.performance))) * 1.5)

  const decades = Math.round(Math.log10(xMax / xMin))
  const steps = decades * SAMPLES_PER_DECADE
  const intensities = Array.from({ length: steps + 1 }, (_, i) => xMin * 10 ** ((i * decades) / steps))
  intensities[steps] = xMax
  const at = intensities.findIndex((x) => x >= ridge)
  if (intensities[at] !== ridge) intensities.splice(at, 0, ridge)
  return { ridge, xMin, xMax, yMin, yMax, roof: intensities.map((x) => ({ x, y: roofAt(data, x) })) }
}

export function rooflineTitle(data: RooflineData): string {
  return `Roofline — ${data.adapter}`
}

/** The roof and the ridge point, when the ceilings are known. */
function roofDatasets(data: RooflineData, model: RooflineModel): ChartDataset<'line'>[] {
  if (!hasRoof(data) || model.ridge === undefined) return []
  const roof = `roof: ${formatNumber(data.bandwidth_GB_per_s)} GB/s, ${formatNumber(data.peak_GFLOP_per_s)} GFLOP/s`
  return [
    {
      label: roof,
      data: model.roof,
      borderColor: ROOF_COLOR,
      backgroundColor: ROOF_COLOR,
      borderWidth: 2.5,
      pointRadius: 0,
      pointHitRadius: 4,
      pointStyle: 'line',
      order: 2,
    },
    {
      label: `ridge point: ${formatNumber(model.ridge)} FLOP/byte`,
      data: [{ x: model.ridge, y: data.peak_GFLOP_per_s }],
      borderColor: ROOF_COLOR,
      backgroundColor: '#ffffff',
      borderWidth: 2,
      pointRadius: 5,
      pointStyle: 'circle',
      showLine: false,
      order: 1,
    },
  ]
}

function kernelLabel(data: RooflineData, k: RooflineKernel): string {
  return hasRoof(data) ? `${k.name} (${formatNumber((100 * k.performance) / roofAt(data, k.intensity), 2)}% of roof)` : k.name
}

export function rooflineConfig(data: RooflineData, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  const model = rooflineModel(data)
  const datasets: ChartDataset<'line'>[] = [
    ...roofDatasets(data, model),
    ...(data.kernels ?? []).map(
      (k, i): ChartDataset<'line'> => ({
        label: kernelLabel(data, k),
        data: [{ x: k.intensity, y: k.performance }],
        borderColor: seriesColor(i),
        backgroundColor: seriesColor(i),
        pointStyle: seriesPointStyle(i),
        pointRadius: 6,
        pointHoverRadius: 8,
        showLine: false,
        order: 0,
      }),
    ),
  ]
  const frame = frameOptions(rooflineTitle(data), opts, data.note)
  return {
    type: 'line',
    data: { datasets },
    options: {
      ...frame,
      interaction: { mode: 'nearest', intersect: true },
      plugins: {
        ...frame.plugins,
        tooltip: {
          ...frame.plugins?.tooltip,
          callbacks: {
            title: (items) => (items[0] ? `${formatNumber(items[0].parsed.x ?? NaN, 4)} FLOP/byte` : ''),
            label: (item) => `${item.dataset.label}: ${formatNumber(item.parsed.y ?? NaN, 4)} GFLOP/s`,
          },
        },
      },
      scales: {
        x: axis('arithmetic intensity (FLOP/byte)', true, { min: model.xMin, max: model.xMax }),
        y: axis('performance (GFLOP/s)', true, { min: model.yMin, max: model.yMax }),
      },
    },
  }
}

function validate(data: RooflineData): void {
  const positive = (v: number | undefined) => v !== undefined && Number.isFinite(v) && v > 0
  if ((data.peak_GFLOP_per_s === undefined) !== (data.bandwidth_GB_per_s === undefined))
    throw new ApiError('invalid-argument', `roofline for ${data.adapter}: peak compute and bandwidth go together, got only one`)
  if (!hasRoof(data)) {
    if (!data.kernels?.length) throw new ApiError('invalid-argument', `roofline for ${data.adapter}: no ceilings and no kernels to draw`)
  } else {
    if (!positive(data.peak_GFLOP_per_s))
      throw new ApiError('invalid-argument', `roofline for ${data.adapter}: peak compute must be a positive number of GFLOP/s, got ${data.peak_GFLOP_per_s}`)
    if (!positive(data.bandwidth_GB_per_s))
      throw new ApiError('invalid-argument', `roofline for ${data.adapter}: bandwidth must be a positive number of GB/s, got ${data.bandwidth_GB_per_s}`)
  }
  for (const k of data.kernels ?? []) {
    if (!positive(k.intensity) || !positive(k.performance))
      throw new ApiError(
        'invalid-argument',
        `roofline kernel "${k.name}": intensity and performance must be positive to sit on log axes, got ${k.intensity} FLOP/byte, ${k.performance} GFLOP/s`,
      )
  }
}
