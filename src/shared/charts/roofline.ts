// The roofline model: attainable GFLOP/s = min(peak, bandwidth × arithmetic intensity), on log-log
// axes, with the ridge point where the two limits meet and measured kernels placed under the roof.
// Without the device's ceilings (not measured) the kernels' points are drawn alone, on the same axes.
// The CPU's roof may share the axes, with the CPU backends' points under it: each point is placed,
// and its share of the roof given, against the roof of the hardware it ran on.
import type { ChartConfiguration, ChartDataset } from 'chart.js'
import { ApiError } from '../errors'
import { adapterName, type CpuBenchResult, type DeviceBenchResult } from '../device'
import { type ChartConfigOptions, axis, decadeAbove, decadeBelow, frameOptions } from './common'
import { formatNumber } from './format'
import type { ChartSpec, CpuRoofData, RoofData, RooflineData, RooflineKernel } from './spec'
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

/** The CPU's roof from what `bench device` measured of it: every thread's SIMD multiply-adds and read. */
export function cpuRoofFromBench(cpu: CpuBenchResult, kernels?: RooflineKernel[]): CpuRoofData {
  return {
    cpu: cpu.cpu,
    peak_GFLOP_per_s: cpu.workers_simd_GFLOP_per_s,
    bandwidth_GB_per_s: cpu.read_bandwidth_GB_per_s,
    ...(kernels ? { kernels } : {}),
  }
}

/**
 * The Device benchmark's roofline: the GPU's roof where one was measured, the CPU's where it was, each
 * with the points of the hardware it stands for; null when neither was measured.
 */
export function deviceRoofline(
  measured: { bench?: DeviceBenchResult; cpu?: CpuBenchResult },
  points: { gpu?: RooflineKernel[]; cpu?: RooflineKernel[] } = {},
  note?: string,
): RooflineData | null {
  const { bench, cpu } = measured
  if (!bench && !cpu) return null
  return {
    ...(bench ? rooflineFromBench(bench, points.gpu) : { adapter: '' }),
    ...(cpu ? { cpu: cpuRoofFromBench(cpu, points.cpu) } : {}),
    ...(note ? { note } : {}),
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

/** The two ceilings of a roof, the GPU's or the CPU's. */
type Ceilings = Pick<RoofData, 'peak_GFLOP_per_s' | 'bandwidth_GB_per_s'>

/** Attainable GFLOP/s at `intensity` FLOP/byte. */
export function roofAt(data: Ceilings, intensity: number): number {
  return Math.min(data.peak_GFLOP_per_s, data.bandwidth_GB_per_s * intensity)
}

/** FLOP/byte where memory bandwidth stops limiting and peak compute starts. */
export function ridgePoint(data: Ceilings): number {
  return data.peak_GFLOP_per_s / data.bandwidth_GB_per_s
}

export interface RooflineModel {
  /** Absent without ceilings, as is the roof (then empty). */
  ridge?: number
  /** Intensity range of the x axis: whole decades around the ridges and every kernel. */
  xMin: number
  xMax: number
  yMin: number
  yMax: number
  /** The roof sampled log-uniformly over [xMin, xMax], the ridge point included exactly. */
  roof: { x: number; y: number }[]
  /** The CPU's roof, sampled alike, where the chart has one. */
  cpu?: { ridge: number; roof: { x: number; y: number }[] }
}

/** The kernels of both roofs. */
function allKernels(data: RooflineData): RooflineKernel[] {
  return [...(data.kernels ?? []), ...(data.cpu?.kernels ?? [])]
}

/** Samples of `roof` log-uniform over [xMin, xMax] (whole decades), its ridge point among them. */
function sampleRoof(roof: Ceilings, xMin: number, xMax: number): { x: number; y: number }[] {
  const ridge = ridgePoint(roof)
  const decades = Math.round(Math.log10(xMax / xMin))
  const steps = decades * SAMPLES_PER_DECADE
  const intensities = Array.from({ length: steps + 1 }, (_, i) => xMin * 10 ** ((i * decades) / steps))
  intensities[steps] = xMax
  const at = intensities.findIndex((x) => x >= ridge)
  if (intensities[at] !== ridge) intensities.splice(at, 0, ridge)
  return intensities.map((x) => ({ x, y: roofAt(roof, x) }))
}

export function rooflineModel(data: RooflineData): RooflineModel {
  validate(data)
  const kernels = allKernels(data)
  const xs = kernels.map((k) => k.intensity)
  const ys = kernels.map((k) => k.performance)
  const roofs = [...(hasRoof(data) ? [data] : []), ...(data.cpu ? [data.cpu] : [])]
  if (!roofs.length) {
    return {
      xMin: decadeBelow(minOf(xs) / 2),
      xMax: decadeAbove(maxOf(xs) * 2),
      yMin: decadeBelow(minOf(ys) / 2),
      yMax: decadeAbove(maxOf(ys) * 1.5),
      roof: [],
    }
  }
  const ridges = roofs.map(ridgePoint)
  const xMin = decadeBelow(Math.min(minOf(ridges) / 100, minOf(xs) / 2))
  const xMax = decadeAbove(Math.max(maxOf(ridges) * 100, maxOf(xs) * 2))
  const yMin = decadeBelow(Math.min(minOf(roofs.map((r) => roofAt(r, xMin))), minOf(ys) / 2))
  const yMax = decadeAbove(Math.max(maxOf(roofs.map((r) => r.peak_GFLOP_per_s)), maxOf(ys)) * 1.5)
  const model: RooflineModel = { xMin, xMax, yMin, yMax, roof: [] }
  if (hasRoof(data)) Object.assign(model, { ridge: ridgePoint(data), roof: sampleRoof(data, xMin, xMax) })
  if (data.cpu) model.cpu = { ridge: ridgePoint(data.cpu), roof: sampleRoof(data.cpu, xMin, xMax) }
  return model
}

/** Names the hardware of the chart's roofs and points: the adapter, the CPU, or both. */
export function rooflineTitle(data: RooflineData): string {
  const names = [data.adapter, data.cpu?.cpu].filter(Boolean)
  return `Roofline — ${names.join(' and ')}`
}

/** A roof and its ridge point: `who` names it where the chart holds two (the GPU's, the CPU's). */
function roofLines(roof: Ceilings, sampled: { ridge: number; roof: { x: number; y: number }[] }, who: string, dash: number[]): ChartDataset<'line'>[] {
  const label = `${who ? `${who} roof` : 'roof'}: ${formatNumber(roof.bandwidth_GB_per_s)} GB/s, ${formatNumber(roof.peak_GFLOP_per_s)} GFLOP/s`
  return [
    {
      label,
      data: sampled.roof,
      borderColor: ROOF_COLOR,
      backgroundColor: ROOF_COLOR,
      borderWidth: 2.5,
      borderDash: dash,
      pointRadius: 0,
      pointHitRadius: 4,
      pointStyle: 'line',
      order: 2,
    },
    {
      label: `${who ? `${who} ridge point` : 'ridge point'}: ${formatNumber(sampled.ridge)} FLOP/byte`,
      data: [{ x: sampled.ridge, y: roof.peak_GFLOP_per_s }],
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

/** The roofs and their ridge points, where the ceilings are known: the CPU's dashed. */
function roofDatasets(data: RooflineData, model: RooflineModel): ChartDataset<'line'>[] {
  const gpu = hasRoof(data) && model.ridge !== undefined ? roofLines(data, { ridge: model.ridge, roof: model.roof }, data.cpu ? 'GPU' : '', []) : []
  const cpu = data.cpu && model.cpu ? roofLines(data.cpu, model.cpu, 'CPU', [8, 4]) : []
  return [...gpu, ...cpu]
}

/** A kernel's legend entry: its share of the roof it sits under, where that roof is known. */
function kernelLabel(k: RooflineKernel, roof: Ceilings | undefined, who: string): string {
  return roof ? `${k.name} (${formatNumber((100 * k.performance) / roofAt(roof, k.intensity), 2)}% of ${who ? `${who} roof` : 'roof'})` : k.name
}

export function rooflineConfig(data: RooflineData, opts: ChartConfigOptions = {}): ChartConfiguration<'line'> {
  const model = rooflineModel(data)
  const placed: [RooflineKernel, Ceilings | undefined, string][] = [
    ...(data.kernels ?? []).map((k): [RooflineKernel, Ceilings | undefined, string] => [k, hasRoof(data) ? data : undefined, data.cpu ? 'GPU' : '']),
    ...(data.cpu?.kernels ?? []).map((k): [RooflineKernel, Ceilings | undefined, string] => [k, data.cpu, 'CPU']),
  ]
  const datasets: ChartDataset<'line'>[] = [
    ...roofDatasets(data, model),
    ...placed.map(
      ([k, roof, who], i): ChartDataset<'line'> => ({
        label: kernelLabel(k, roof, who),
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
  if (data.cpu) {
    if (!positive(data.cpu.peak_GFLOP_per_s) || !positive(data.cpu.bandwidth_GB_per_s))
      throw new ApiError(
        'invalid-argument',
        `roofline for ${data.cpu.cpu}: the CPU's peak and bandwidth must be positive numbers, got ${data.cpu.peak_GFLOP_per_s} GFLOP/s and ${data.cpu.bandwidth_GB_per_s} GB/s`,
      )
  }
  if (!hasRoof(data)) {
    if (!data.kernels?.length && !data.cpu) throw new ApiError('invalid-argument', `roofline for ${data.adapter}: no ceilings and no kernels to draw`)
  } else {
    if (!positive(data.peak_GFLOP_per_s))
      throw new ApiError('invalid-argument', `roofline for ${data.adapter}: peak compute must be a positive number of GFLOP/s, got ${data.peak_GFLOP_per_s}`)
    if (!positive(data.bandwidth_GB_per_s))
      throw new ApiError('invalid-argument', `roofline for ${data.adapter}: bandwidth must be a positive number of GB/s, got ${data.bandwidth_GB_per_s}`)
  }
  for (const k of allKernels(data)) {
    if (!positive(k.intensity) || !positive(k.performance))
      throw new ApiError(
        'invalid-argument',
        `roofline kernel "${k.name}": intensity and performance must be positive to sit on log axes, got ${k.intensity} FLOP/byte, ${k.performance} GFLOP/s`,
      )
  }
}
