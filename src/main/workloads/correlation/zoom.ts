// A block range of the matrix at full resolution: rows FIRST:LAST and columns FIRST:LAST of the
// series (positions from 0, in the input's order), each cell one pair's r computed here in f64 from
// the kept series — the whole matrix is neither recomputed nor held. Beyond HEATMAP_CELLS a side the
// range is aggregated again, in blocks as fine as the chart shows.
import { ApiError } from '../../../shared/errors'
import type { HeatmapZoom } from '../../../shared/workloads/correlation/types'
import { BlockStats, blockCells } from '../block-stats'
import { fourDecimals, HEATMAP_CELLS } from './ranking'
import { parseZoomRange, ZOOM_MAX_SIDE, type ZoomRange } from '../../../shared/workloads/zoom-range'
import type { SeriesMatrix } from './series-matrix'

/** Series a side a zoom may span (the grammar is the heatmaps' own: shared/workloads/zoom-range.ts). */
export const ZOOM_MAX_SERIES = ZOOM_MAX_SIDE

type Range = ZoomRange

/** `FIRST:LAST` or `FIRST:LAST,FIRST:LAST` (rows, then columns of as many series; columns default to the rows), checked against m. */
export function parseZoom(text: string, m: number): { rows: Range; cols: Range } {
  return parseZoomRange(text, m, 'series')
}

/** Each series of `range` centred, and the norm of its deviations (0 for a constant series). */
function centred(series: SeriesMatrix, [a, b]: Range): { d: Float64Array; norms: Float64Array } {
  const { n, values } = series
  const k = b - a + 1
  const d = new Float64Array(k * n)
  const norms = new Float64Array(k)
  for (let s = 0; s < k; s++) {
    const x = values.subarray((a + s) * n, (a + s + 1) * n)
    let mean = 0
    for (let t = 0; t < n; t++) mean += x[t]
    mean /= n
    let ss = 0
    for (let t = 0; t < n; t++) {
      const v = x[t] - mean
      d[s * n + t] = v
      ss += v * v
    }
    norms[s] = series.constant[a + s] ? 0 : Math.sqrt(ss)
  }
  return { d, norms }
}

/** The range's cells: each pair's r (at most HEATMAP_CELLS a side), or each block's mean, least and greatest r. */
export function zoomHeatmap(series: SeriesMatrix, rows: Range, cols: Range, cells = HEATMAP_CELLS, signal?: AbortSignal): HeatmapZoom {
  const { n, names } = series
  const kr = rows[1] - rows[0] + 1
  const kc = cols[1] - cols[0] + 1
  const block = Math.max(1, Math.ceil(Math.max(kr, kc) / cells))
  const sizeR = Math.ceil(kr / block)
  const sizeC = Math.ceil(kc / block)
  const R = centred(series, rows)
  const C = rows[0] === cols[0] && rows[1] === cols[1] ? R : centred(series, cols)
  const stats = new BlockStats(sizeR * sizeC)
  const cellOf = blockCells(kc, block)
  const r = new Float64Array(kc)
  for (let i = 0; i < kr; i++) {
    if (signal?.aborted) throw new ApiError('cancelled', 'cancelled')
    const ni = R.norms[i]
    if (ni === 0) continue
    const x = R.d.subarray(i * n, (i + 1) * n)
    for (let j = 0; j < kc; j++) {
      const nj = C.norms[j]
      // A constant series has no r: left out of its blocks.
      if (nj === 0) {
        r[j] = NaN
        continue
      }
      const y = C.d.subarray(j * n, (j + 1) * n)
      let dot = 0
      for (let t = 0; t < n; t++) dot += x[t] * y[t]
      r[j] = Math.max(-1, Math.min(1, dot / ni / nj))
    }
    stats.addRow(r, Math.floor(i / block) * sizeC, cellOf)
  }
  const label = (first: number, last: number) => (first === last ? names[first] : `${names[first]} … ${names[last]} (${last - first + 1})`)
  const labelsOf = ([a, b]: Range, size: number) => Array.from({ length: size }, (_, c) => label(a + c * block, Math.min(b, a + (c + 1) * block - 1)))
  return {
    rows,
    cols,
    block,
    rowLabels: labelsOf(rows, sizeR),
    colLabels: labelsOf(cols, sizeC),
    values: stats.mean(fourDecimals),
    ...(block > 1 && { min: stats.least(fourDecimals), max: stats.greatest(fourDecimals) }),
  }
}
