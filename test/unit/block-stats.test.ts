import { describe, expect, it } from 'vitest'
import { BlockStats, blockCells } from '../../src/main/workloads/block-stats'

describe('block statistics of a heatmap', () => {
  it('gives each block its least, greatest and mean value, skipping NaN and the missing sentinel, null where none is left', () => {
    const INF = 1073741823
    // A 4 × 4 matrix in 2 × 2 blocks; the top-right block has only missing values.
    const rows = [
      [1, 2, INF, INF],
      [3, NaN, INF, INF],
      [5, 6, 7, 8],
      [INF, 9, 10, 12],
    ]
    const stats = new BlockStats(4, INF)
    const cellOf = blockCells(4, 2)
    expect([...cellOf]).toEqual([0, 0, 1, 1])
    rows.forEach((r, i) => stats.addRow(Int32Array.from(r.map((x) => (x !== x ? INF : x))), Math.floor(i / 2) * 2, cellOf))
    expect(stats.least()).toEqual([1, null, 5, 7])
    expect(stats.greatest()).toEqual([3, null, 9, 12])
    expect(stats.mean((v) => Math.round(v * 10) / 10)).toEqual([2, null, 6.7, 9.3])
  })

  it('skips NaN in floating rows and writes values through `shown`', () => {
    const stats = new BlockStats(1)
    stats.addRow(Float64Array.of(0.12344, NaN, -0.5), 0, new Uint32Array(3))
    expect(stats.least((v) => Math.round(v * 100) / 100)).toEqual([-0.5])
    expect(stats.greatest((v) => Math.round(v * 100) / 100)).toEqual([0.12])
    expect(stats.mean()).toEqual([(0.12344 - 0.5) / 2])
  })
})
