// The distance heatmap of a large graph (V = 40 000 draws 157 × 157 vertices a cell): each block's
// least, mean or greatest finite distance, the chart's title and note naming which.
import { describe, expect, it } from 'vitest'
import type { HeatmapChartData } from '../../src/shared/charts/spec'
import { pathsChartSpecs } from '../../src/shared/workloads/paths/charts'
import { INF, type PathsGraphResult } from '../../src/shared/workloads/paths/types'
import { HEATMAP_MAX, summarize } from '../../src/main/workloads/paths/summary'

describe('the distance heatmap in blocks', () => {
  // V = 2 × HEATMAP_MAX + 1: blocks of 3 vertices, the last block a single one.
  const V = 2 * HEATMAP_MAX + 1
  const d = new Int32Array(V * V).map((_, k) => {
    const i = Math.floor(k / V)
    const j = k % V
    return i === j ? 0 : (i + j) % 5 === 0 ? INF : i + j
  })
  const s = summarize(d, V)

  it('keeps each block\'s least, mean and greatest finite distance', () => {
    expect([s.heatmap.cell, s.heatmap.size]).toEqual([3, 171])
    // Block (0, 1): rows 0–2, columns 3–5; i + j = 3…7, those divisible by 5 unreachable.
    const finite = [0, 1, 2].flatMap((i) => [3, 4, 5].map((j) => i + j)).filter((x) => x % 5 !== 0)
    expect(s.heatmap.min[1]).toBe(Math.min(...finite))
    expect(s.heatmap.max![1]).toBe(Math.max(...finite))
    expect(s.heatmap.mean![1]).toBeCloseTo(finite.reduce((a, b) => a + b, 0) / finite.length, 1)
  })

  it('draws the aggregate asked for, naming it', () => {
    const g = { path: '/d/g.bin', vertices: V, minDistance: s.minDistance, maxDistance: s.maxDistance, heatmap: s.heatmap, runs: [], histogram: s.histogram } as unknown as PathsGraphResult
    const drawn = (a?: 'min' | 'mean' | 'max') => pathsChartSpecs(g, a).heatmap.data as HeatmapChartData
    expect(drawn().title).toContain('least of 3 × 3 blocks')
    expect(drawn('max').title).toContain('greatest of 3 × 3 blocks')
    expect(drawn('max').note).toContain("each block's greatest distance")
    expect(drawn('mean').title).toContain('mean of 3 × 3 blocks')
    expect(drawn('max').values[1]).toBe(s.heatmap.max![1])
  })
})
