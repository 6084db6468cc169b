// A block range of a distance matrix at full resolution: rows FIRST:LAST and columns FIRST:LAST of
// the vertices, each cell one pair's distance; beyond ZOOM_CELLS a side, blocks as fine as the chart
// shows, with their least, greatest and mean finite distance. The rows come from wherever the
// matrix is: in memory after a run, or read from the copy a dashboard's run kept (kept-distances.ts).
import { throwIfAborted } from '../../../shared/cancel'
import { INF, type DistanceZoom } from '../../../shared/workloads/paths/types'
import type { ZoomRange } from '../../../shared/workloads/zoom-range'
import { BlockStats, blockCells } from '../block-stats'
import type { Distances } from './matrix'

/** Cells a side of the chart: the distance heatmap's. */
export const ZOOM_CELLS = 256

export type ZoomCells = Pick<DistanceZoom, 'rows' | 'cols' | 'block' | 'min' | 'max' | 'mean'>

/** `row(i)`: row i's distances from column cols[0] to cols[1]; `none`: their "no path" (INF, or ∞ for real distances). */
export async function zoomDistances(row: (i: number) => Distances | Promise<Distances>, rows: ZoomRange, cols: ZoomRange, signal?: AbortSignal, cells = ZOOM_CELLS, none = INF): Promise<ZoomCells> {
  const kr = rows[1] - rows[0] + 1
  const kc = cols[1] - cols[0] + 1
  const block = Math.max(1, Math.ceil(Math.max(kr, kc) / cells))
  const sizeR = Math.ceil(kr / block)
  const sizeC = Math.ceil(kc / block)
  const stats = new BlockStats(sizeR * sizeC, none)
  const cellOf = blockCells(kc, block)
  for (let i = 0; i < kr; i++) {
    throwIfAborted(signal)
    stats.addRow(await row(rows[0] + i), Math.floor(i / block) * sizeC, cellOf)
  }
  return { rows, cols, block, min: stats.least(), ...(block > 1 && { max: stats.greatest(), mean: stats.mean(tenths) }) }
}

/** A mean distance as the charts show it: to a tenth. */
export const tenths = (v: number) => Math.round(v * 10) / 10

/** Rows of a V × V matrix in memory, as zoomDistances reads them. */
export function rowsOf(d: Distances, V: number, cols: ZoomRange): (i: number) => Distances {
  return (i) => d.subarray(i * V + cols[0], i * V + cols[1] + 1)
}
