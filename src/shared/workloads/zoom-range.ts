// The zoom grammar of the heatmaps (correlation's series, shortest paths' vertices): rows FIRST:LAST,
// optionally then columns FIRST:LAST of as many positions, from 0, at most ZOOM_MAX_SIDE a side.
import { ApiError } from '../errors'

/** Positions a side a zoom may span: a few blocks of a chart's 256 cells, read or computed in seconds. */
export const ZOOM_MAX_SIDE = 1024

export type ZoomRange = [number, number]

/** `FIRST:LAST` or `FIRST:LAST,FIRST:LAST` (rows, then columns; columns default to the rows), checked against `count` positions of `what`. */
export function parseZoomRange(text: string, count: number, what: string): { rows: ZoomRange; cols: ZoomRange } {
  const parts = text.split(',').map((p) => p.trim())
  const ranges = parts.map((p) => {
    const match = /^(\d+):(\d+)$/.exec(p)
    if (!match) throw new ApiError('invalid-argument', `zoom ${JSON.stringify(text)}: give ${what} positions FIRST:LAST (from 0), or FIRST:LAST,FIRST:LAST for rows and columns`)
    const range: ZoomRange = [Number(match[1]), Number(match[2])]
    if (range[0] > range[1] || range[1] >= count) throw new ApiError('invalid-argument', `zoom ${p}: positions run from 0 to ${count - 1}, first ≤ last`)
    if (range[1] - range[0] + 1 > ZOOM_MAX_SIDE) throw new ApiError('invalid-argument', `zoom ${p}: at most ${ZOOM_MAX_SIDE} ${what} a side (${range[1] - range[0] + 1} asked)`)
    return range
  })
  if (ranges.length > 2) throw new ApiError('invalid-argument', `zoom ${JSON.stringify(text)}: one range for rows and columns, or two`)
  const [rows, cols = rows] = ranges
  // Square cells on a square chart: as many columns as rows.
  if (cols[1] - cols[0] !== rows[1] - rows[0]) throw new ApiError('invalid-argument', `zoom ${JSON.stringify(text)}: the rows and the columns span as many ${what} (${rows[1] - rows[0] + 1} and ${cols[1] - cols[0] + 1})`)
  return { rows, cols }
}
