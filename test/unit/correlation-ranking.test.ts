// What the workload makes of a matrix, against independent computations: medians by sorting, robust
// z-scores, the ranking's order and flags, block-averaged heatmaps, histograms, a pair's overlay;
// and the heatmap cell a click picks.
import { describe, expect, it } from 'vitest'
import type { HeatmapData } from '../../src/shared/workloads/correlation/types'
import { pairOverlay } from '../../src/main/workloads/correlation/pair'
import { heatmapOf, heatmapOrder, histogramOf, medianOf, rankSeries, robustZ } from '../../src/main/workloads/correlation/ranking'
import { indexNames, seriesMatrix } from '../../src/main/workloads/correlation/series-matrix'
import { cellOf, cellPair } from '../../src/renderer/workloads/correlation/heatmap-pick'
import { pearson, rng } from '../helpers/correlation-reference'

const sortedMedian = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** A symmetric m × m matrix with 1 on the diagonal from a function of i < j. */
function matrixOf(m: number, r: (i: number, j: number) => number): Float64Array {
  const out = new Float64Array(m * m)
  for (let i = 0; i < m; i++) {
    out[i * m + i] = 1
    for (let j = i + 1; j < m; j++) out[i * m + j] = out[j * m + i] = r(i, j)
  }
  return out
}

describe('medians and z-scores', () => {
  it('select the middle as sorting does, odd and even, with ties', () => {
    const random = rng(1)
    for (const n of [1, 2, 3, 10, 101, 1000]) {
      const xs = Array.from({ length: n }, () => Math.floor(random() * 20) - 5)
      expect(medianOf(Float64Array.from(xs), n)).toBe(sortedMedian(xs))
    }
  })

  it('are 0.6745 (x − median) / MAD, NaN kept, the mean absolute deviation when MAD is 0', () => {
    const xs = [0.9, 0.92, 0.91, 0.5, 0.93, NaN]
    const finite = xs.filter((v) => !Number.isNaN(v))
    const med = sortedMedian(finite)
    const mad = sortedMedian(finite.map((v) => Math.abs(v - med)))
    const z = robustZ(Float64Array.from(xs))
    finite.forEach((v, i) => expect(z[i]).toBeCloseTo((0.6745 * (v - med)) / mad, 12))
    expect(z[5]).toBeNaN()
    // More than half equal: MAD 0, the mean absolute deviation (× √(π/2)) takes its place.
    const flat = robustZ(Float64Array.of(1, 1, 1, 0))
    expect(flat[3]).toBeCloseTo(-1 / (1.2533 * 0.25), 12)
    expect(Array.from(robustZ(Float64Array.of(2, 2)))).toEqual([0, 0])
  })
})

describe('ranking', () => {
  // Series 0…5 alike (r 0.9), series 4 a little off (0.7), series 2 far off (0.1), series 5 constant.
  const m = 6
  const off: Record<number, number> = { 4: 0.7, 2: 0.1 }
  const r = matrixOf(m, (i, j) => (i === 5 || j === 5 ? NaN : Math.min(off[i] ?? 0.9, off[j] ?? 0.9)))
  r[5 * m + 5] = NaN
  const ranking = rankSeries(r, m, indexNames(m), -3.5, 1)

  it('orders by z, most anomalous first, a constant series last without numbers', () => {
    expect(ranking.map((e) => e.index)).toEqual([2, 4, 0, 1, 3, 5])
    expect(ranking[5]).toEqual({ name: 's5', index: 5, meanR: null, medianR: null, z: null, flagged: false })
  })

  it('gives each series its mean and median r with the others, and flags those below the threshold', () => {
    const s2 = ranking[0]
    expect(s2.meanR).toBeCloseTo(0.1, 12)
    const s4 = ranking.find((e) => e.index === 4)!
    expect(s4.meanR).toBeCloseTo((0.7 * 3 + 0.1) / 4, 12)
    expect(s4.medianR).toBeCloseTo(0.7, 12)
    expect(ranking.filter((e) => e.flagged).map((e) => e.name)).toEqual(['s2', 's4'])
    const zs = ranking.slice(0, 5).map((e) => e.z!)
    expect(zs).toEqual([...zs].sort((a, b) => a - b))
  })
})

describe('heatmap', () => {
  const m = 5
  const r = matrixOf(m, (i, j) => (i + 1) / 10 - j / 100)
  r[1 * m + 3] = r[3 * m + 1] = NaN

  it('is the matrix itself up to the cell limit, in the order asked', () => {
    const h = heatmapOf(r, m, indexNames(m), [4, 3, 2, 1, 0], 'ranking', 8)
    expect([h.size, h.block]).toEqual([5, 1])
    expect(h.labels).toEqual(['s4', 's3', 's2', 's1', 's0'])
    expect(h.values[0 * 5 + 1]).toBeCloseTo(r[4 * m + 3], 4)
    expect(h.values[1 * 5 + 3]).toBeNull()
  })

  it('averages blocks of series beyond it, over the finite cells only', () => {
    const h = heatmapOf(r, m, indexNames(m), [0, 1, 2, 3, 4], 'given', 2)
    expect([h.size, h.block]).toEqual([2, 3])
    expect(h.series).toEqual([[0, 1, 2], [3, 4]])
    expect(h.labels).toEqual(['s0 … s2 (3)', 's3 … s4 (2)'])
    const mean = (rows: number[], cols: number[]) => {
      const v = rows.flatMap((i) => cols.map((j) => r[i * m + j])).filter((x) => !Number.isNaN(x))
      return v.reduce((a, b) => a + b, 0) / v.length
    }
    expect(h.values[0]).toBeCloseTo(mean([0, 1, 2], [0, 1, 2]), 4)
    expect(h.values[1]).toBeCloseTo(mean([0, 1, 2], [3, 4]), 4)
    expect(h.values[3]).toBeCloseTo(mean([3, 4], [3, 4]), 4)
  })

  it('follows the ranking when asked', () => {
    const ranking = rankSeries(r, m, indexNames(m), -3.5, 1)
    expect(heatmapOrder('ranking', ranking)).toEqual(ranking.map((e) => e.index))
    expect(heatmapOrder('given', ranking)).toEqual([0, 1, 2, 3, 4])
  })

  it('maps a clicked cell to its pair: the series themselves, or the first of each block', () => {
    const names = rankSeries(r, m, indexNames(m), -3.5, 1)
    const single: HeatmapData = heatmapOf(r, m, indexNames(m), [4, 3, 2, 1, 0], 'ranking', 8)
    expect(cellOf(single, 7)).toEqual({ x: 2, y: 1 })
    expect(cellOf(single, 25)).toBeNull()
    expect(cellPair(single, names, 2, 1)).toEqual(['s3', 's2'])
    expect(cellPair(single, names, 1, 1)).toBeNull()
    const blocks = heatmapOf(r, m, indexNames(m), [0, 1, 2, 3, 4], 'given', 2)
    expect(cellPair(blocks, names, 1, 0)).toEqual(['s0', 's3'])
    expect(cellPair(blocks, names, 0, 0)).toEqual(['s0', 's1'])
  })
})

describe('histogram', () => {
  it('counts the upper triangle in bins over [−1, 1], NaN left out', () => {
    const r = matrixOf(4, (i, j) => [-1, -0.96, 0.05, 0.5, 1, NaN][i + j - 1])
    const h = histogramOf(r, 4, 4)
    expect(h.edges).toEqual([-1, -0.5, 0, 0.5, 1])
    // Pairs (0,1) −1, (0,2) −0.96, (0,3) 0.05, (1,2) 0.05, (1,3) 0.5, (2,3) 1.
    expect(h.counts).toEqual([2, 0, 2, 2])
  })
})

describe('pair overlay', () => {
  const n = 5000
  const random = rng(4)
  const values = Float64Array.from({ length: 2 * n }, (_, i) => Math.sin(i / 50) + random() + (i === 777 ? 40 : 0))
  const series = seriesMatrix(['a', 'b'], values, 2, n)

  it('downsamples to at most the points asked, keeping each run\'s extremes, with r from the formula', () => {
    const p = pairOverlay(series, 0, 1, 1000)
    expect(p.names).toEqual(['a', 'b'])
    expect(p.x.length).toBeLessThanOrEqual(1000)
    expect(p.values[0]).toHaveLength(p.x.length)
    expect(Math.max(...p.values[0])).toBe(Math.max(...values.subarray(0, n))) // the spike at 777 survives
    expect(Math.min(...p.values[1])).toBe(Math.min(...values.subarray(n)))
    expect(p.r).toBeCloseTo(pearson(values.subarray(0, n), values.subarray(n)), 12)
    expect(p.step).toBe(10)
  })

  it('keeps every sample of a short pair, and has no r with a constant series', () => {
    const short = seriesMatrix(['a', 'b'], Float64Array.of(1, 2, 3, 5, 5, 5), 2, 3)
    expect(pairOverlay(short, 0, 1)).toEqual({ names: ['a', 'b'], indices: [0, 1], r: null, x: [0, 1, 2], values: [[1, 2, 3], [5, 5, 5]], step: 1 })
  })
})
