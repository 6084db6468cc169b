// Which pair of series a heatmap cell stands for: the cell's row and column positions in the
// heatmap's order, the first series of each (of each block, when blocks are averaged). A cell on
// the diagonal of a single series is no pair; of a block, it pairs the block's first two series.
import type { HeatmapData, RankEntry } from '../../../shared/workloads/correlation/types'

/** The matrix chart's data points are its cells row by row: point i is cell (i mod size, i / size). */
export function cellOf(heatmap: HeatmapData, point: number): { x: number; y: number } | null {
  if (!Number.isInteger(point) || point < 0 || point >= heatmap.size * heatmap.size) return null
  return { x: point % heatmap.size, y: Math.floor(point / heatmap.size) }
}

export function cellPair(heatmap: HeatmapData, ranking: RankEntry[], x: number, y: number): [string, string] | null {
  const rows = heatmap.series[y]
  const columns = heatmap.series[x]
  if (!rows?.length || !columns?.length) return null
  const a = rows[0]
  const b = columns[0] !== a ? columns[0] : columns[1]
  if (b === undefined) return null
  const name = new Map(ranking.map((e) => [e.index, e.name]))
  const pair = [name.get(a), name.get(b)]
  return pair[0] !== undefined && pair[1] !== undefined ? [pair[0], pair[1]] : null
}
