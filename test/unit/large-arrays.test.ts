// Arrays of the study's sizes through every place that takes their extent or appends them: a spread
// into a call (Math.min(...cells), push(...items)) passes each element as an argument and overflows
// the call stack past ~10⁵ of them, so each place is given 10⁶ elements here.
import { describe, expect, it } from 'vitest'
import { finiteExtent, maxOf, minOf, pushAll } from '../../src/shared/extent'
import { rooflineModel } from '../../src/shared/charts/roofline'
import { heatmapOf } from '../../src/main/workloads/correlation/ranking'
import { heatmapChart, heatmapScale } from '../../src/shared/workloads/correlation/charts'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import { timingOf } from '../../src/shared/workloads/envelope'
import { timeUnit } from '../../src/shared/workloads/compare-runs'
import { landslideCharts } from '../../src/shared/workloads/landslide/charts'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { pathsChartSpecs } from '../../src/shared/workloads/paths/charts'
import type { PathsGraphResult } from '../../src/shared/workloads/paths/types'
import { statsChartSpecs } from '../../src/shared/workloads/stats/charts'
import type { StatsFileResult } from '../../src/shared/workloads/stats/types'
import { mergeStats } from '../../src/main/workloads/stats/merge'
import { mergePaths } from '../../src/main/workloads/paths/merge'
import { thicknessMaps } from '../../src/main/workloads/landslide/grid-stats'

const N = 1_000_000
/** 0 … N − 1, shuffled so neither end is first. */
const ramp = Float64Array.from({ length: N }, (_, i) => (i * 7919) % N)

describe('extents and appends of 10⁶ elements', () => {
  it('minOf, maxOf, finiteExtent and pushAll loop rather than spread', () => {
    expect(minOf(ramp)).toBe(0)
    expect(maxOf(ramp)).toBe(N - 1)
    const cells: (number | null)[] = Array.from(ramp, (v) => (v % 10 === 0 ? null : v / N))
    cells[5] = NaN
    cells[6] = Infinity
    expect(finiteExtent(cells)).toEqual({ min: 1 / N, max: (N - 1) / N })
    expect(finiteExtent([null, NaN])).toBeNull()
    expect(minOf([])).toBe(Infinity)
    expect(maxOf([1, NaN])).toBeNaN()
    expect(pushAll([1], ramp).length).toBe(N + 1)
  })

  it('the correlation heatmap of 400 series draws (it overflowed at ≥ 360: 129 600 cells), and its scale takes 10⁶ cells', () => {
    const m = 400
    const matrix = new Float64Array(m * m).map((_, k) => (k % (m + 1) === 0 ? 1 : 0.5 + ((k * 31) % 97) / 200))
    const names = Array.from({ length: m }, (_, i) => `s${i}`)
    const heatmap = heatmapOf(matrix, m, names, names.map((_, i) => i), 'given')
    const r = { input: { path: 'w400.npy', format: 'npy', layout: 'rows', series: m, length: 200, bytes: 0, load_ms: 0 }, precision: 'f64', reference: null, runs: [], constant: [], ranking: [], threshold: -3.5, top: 10, heatmap, skipped: [] } as unknown as CorrelationResult
    const spec = heatmapChart(r)!
    expect(spec.kind).toBe('heatmap')
    const scale = heatmapScale(Array.from(ramp, (v) => v / N), 'data')
    expect(scale.min).toBe(0)
    expect(scale.max).toBe((N - 1) / N)
  })

  it('the distance heatmap of 10⁶ cells', () => {
    const size = 1000
    const g = { path: 'g.bin', format: 'bin', bytes: 0, vertices: size, edges: 0, duplicates: 0, selfLoops: 0, negativeWeights: false, read_ms: 0, reachablePairs: 0, checksum: '0', minDistance: 0, maxDistance: N, runs: [], histogram: { start: 0, width: 1, counts: [1] }, heatmap: { size, cell: 1, min: Array.from(ramp, (v) => (v === 5 ? null : v)) }, successors: false } as unknown as PathsGraphResult
    const spec = pathsChartSpecs(g).heatmap
    if (spec.kind !== 'heatmap') throw new Error(spec.kind)
    expect([spec.data.min, spec.data.max]).toEqual([0, N - 1])
  })

  it('timings, a comparison unit and the roofline of 10⁶ samples', () => {
    const t = timingOf(Array.from(ramp, (v) => v + 1))
    expect([t.min, t.max, t.runs]).toEqual([1, N, N])
    expect(timeUnit(Array.from(ramp, (v) => v + 2000)).unit).toBe('s')
    const kernels = Array.from({ length: N }, (_, i) => ({ name: `k${i}`, intensity: 1 + (i % 100), performance: 10 + (i % 1000) }))
    const model = rooflineModel({ title: 'r', kernels } as never)
    expect(model.xMin).toBeLessThanOrEqual(0.5)
    expect(model.yMax).toBeGreaterThanOrEqual(1009 * 1.5)
    const roofed = rooflineModel({ title: 'r', kernels, peak_GFLOP_per_s: 100, bandwidth_GB_per_s: 10 } as never)
    expect(roofed.yMax).toBeGreaterThanOrEqual(1009 * 1.5)
  })

  it('the landslide mass drift over 10⁶ frames', () => {
    const mass = Array.from({ length: N }, (_, i) => 1000 + (i === N - 1 ? 1 : 0))
    const r = {
      grid: { rows: 10, cols: 10, cellsize: 10, xllcorner: 0, yllcorner: 0, nodata: null, walls: 0, files: { dem: 'dem.txt', source: 'source.txt' } },
      steps: N,
      reference: { backend: 'serial', md5: 'x', mass_start: 1000, mass_end: 1001 },
      runs: {},
      series: { step: mass.map((_, i) => i), mass, flooded: mass, max_thickness: mass, active: mass },
      maps: [],
      skipped: [],
    } as unknown as LandslideResult
    const spec = landslideCharts(r).find((c) => c.name === 'mass')!.spec
    if (spec.kind !== 'series') throw new Error(spec.kind)
    expect(spec.data.note).toContain('changed by up to')
  })

  it('statistics charts of 10⁶ prefix sizes and merges of 10⁶ files', () => {
    const batches = Array.from({ length: N }, (_, i) => ({ rows: 1000 * (i + 1), backends: {} }))
    const file = { path: 'acc.csv', rows: N, columns: [], backends: {}, batches, failed: [] } as unknown as StatsFileResult
    const specs = statsChartSpecs(file)
    if (specs.time.kind !== 'series') throw new Error(specs.time.kind)
    expect(specs.time.data.logX).toBe(true)
    const many = Array.from({ length: N }, () => ({}))
    const stats = mergeStats([{ file: 'a', outcome: { results: { files: many, failed: many, skipped: [] }, timings: {} } }] as never)
    expect(stats.results.files.length).toBe(N)
    const paths = mergePaths([{ file: 'a', outcome: { results: { graphs: many, skipped: [] }, timings: {} } }] as never)
    expect(paths.results.graphs.length).toBe(N)
  })

  // Each snapshot becomes a map of its own, so 2 × 10⁵ of them (past the ~1.2 × 10⁵ a spread took here) keep the test quick.
  it('the landslide thickness maps around 2 × 10⁵ snapshot windows', () => {
    const count = 200_000
    const snapshots = Array.from({ length: count }, (_, i) => ({ step: i, i0: 10 + (i % 2), j0: 20, rows: 1, cols: 1, h: Float32Array.of(1) }))
    const maps = thicknessMaps(snapshots, 100, 100)
    expect(maps.length).toBe(count)
    expect([maps[0].row0, maps[0].size]).toEqual([8, 6])
  })
})
