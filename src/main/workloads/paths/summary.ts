// What a distance matrix amounts to: reachable pairs, the checksum (sum of finite distances), the
// extremes, a histogram of finite distances and a block-minimum heatmap small enough for a chart.
// Real distances (f64) sum in f64, and their histogram's bins are real too.
import { INF, type DistanceHeatmap, type DistanceHistogram } from '../../../shared/workloads/paths/types'
import { BlockStats, blockCells } from '../block-stats'
import { tenths } from './zoom'
import { type Distances, noPath } from './matrix'

/** Heatmap cells per side at most: beyond, each cell is the minimum of a block of vertices. */
export const HEATMAP_MAX = 256
export const HISTOGRAM_BINS = 32

export interface DistanceSummary {
  reachablePairs: number
  checksum: string
  minDistance: number | null
  maxDistance: number | null
  histogram: DistanceHistogram
  heatmap: DistanceHeatmap
}

/** The sum of the finite distances, in decimal: the checksum alone, a single pass. */
export function finiteSum(d: Distances, V: number): string {
  if (d instanceof Float64Array) return String(realSum(d, V))
  let total = 0n
  for (let i = 0; i < V; i++) {
    // A row's sum stays exact in a double (V · 2^30 < 2^53); the total may not.
    let row = 0
    for (let j = i * V, end = j + V; j < end; j++) if (d[j] !== INF) row += d[j]
    total += BigInt(row)
  }
  return total.toString()
}

/** Real distances' finite sum, in f64, row by row. */
function realSum(d: Float64Array, V: number): number {
  let total = 0
  for (let i = 0; i < V; i++) {
    let row = 0
    for (let j = i * V, end = j + V; j < end; j++) if (d[j] !== Infinity) row += d[j]
    total += row
  }
  return total
}

export function summarize(d: Distances, V: number): DistanceSummary {
  if (d instanceof Float64Array) return summarizeReal(d, V)
  let reachable = 0
  let total = 0n
  let lo = Infinity
  let hi = -Infinity
  for (let i = 0; i < V; i++) {
    // A row's sum stays exact in a double (V · 2^30 < 2^53); the total may not.
    let row = 0
    for (let j = 0; j < V; j++) {
      const x = d[i * V + j]
      if (x === INF) continue
      row += x
      if (i === j) continue
      reachable++
      if (x < lo) lo = x
      if (x > hi) hi = x
    }
    total += BigInt(row)
  }
  const minDistance = reachable ? lo : null
  const maxDistance = reachable ? hi : null
  return { reachablePairs: reachable, checksum: total.toString(), minDistance, maxDistance, histogram: histogram(d, V, minDistance, maxDistance), heatmap: heatmap(d, V) }
}

function summarizeReal(d: Float64Array, V: number): DistanceSummary {
  let reachable = 0
  let lo = Infinity
  let hi = -Infinity
  for (let i = 0; i < V; i++)
    for (let j = 0; j < V; j++) {
      const x = d[i * V + j]
      if (i === j || x === Infinity) continue
      reachable++
      if (x < lo) lo = x
      if (x > hi) hi = x
    }
  const minDistance = reachable ? lo : null
  const maxDistance = reachable ? hi : null
  return { reachablePairs: reachable, checksum: String(realSum(d, V)), minDistance, maxDistance, histogram: realHistogram(d, V, minDistance, maxDistance), heatmap: heatmap(d, V) }
}

/** HISTOGRAM_BINS bins of equal real width from the least to the greatest distance (one bin when they are equal). */
function realHistogram(d: Float64Array, V: number, lo: number | null, hi: number | null): DistanceHistogram {
  if (lo === null || hi === null) return { start: 0, width: 1, counts: [] }
  const bins = hi > lo ? HISTOGRAM_BINS : 1
  const width = hi > lo ? (hi - lo) / bins : 1
  const counts = new Array<number>(bins).fill(0)
  for (let i = 0; i < V; i++)
    for (let j = 0; j < V; j++) {
      const x = d[i * V + j]
      if (i !== j && x !== Infinity) counts[Math.min(bins - 1, Math.floor((x - lo) / width))]++
    }
  return { start: lo, width, counts }
}

function histogram(d: Int32Array, V: number, lo: number | null, hi: number | null): DistanceHistogram {
  if (lo === null || hi === null) return { start: 0, width: 1, counts: [] }
  const width = Math.max(1, Math.ceil((hi - lo + 1) / HISTOGRAM_BINS))
  const counts = new Array<number>(Math.ceil((hi - lo + 1) / width)).fill(0)
  for (let i = 0; i < V; i++)
    for (let j = 0; j < V; j++) {
      const x = d[i * V + j]
      if (i !== j && x !== INF) counts[Math.floor((x - lo) / width)]++
    }
  return { start: lo, width, counts }
}

/** Each block's least distance, and with blocks its greatest and mean finite ones too (null: none reachable). */
function heatmap(d: Distances, V: number): DistanceHeatmap {
  const cell = Math.ceil(V / HEATMAP_MAX)
  const size = Math.ceil(V / cell)
  const stats = new BlockStats(size * size, noPath(d))
  const cellOf = blockCells(V, cell)
  for (let i = 0; i < V; i++) stats.addRow(d.subarray(i * V, (i + 1) * V), Math.floor(i / cell) * size, cellOf)
  return { size, cell, min: stats.least(), ...(cell > 1 && { max: stats.greatest(), mean: stats.mean(tenths) }) }
}
