// The difference of two runs' final debris thickness, B − A, drawn as a map frame (map-frame.ts):
// diverging colours centred at 0 (red where B holds more debris, blue where it holds less), by the
// signed square root as the thickness's own scale is, so a thin difference stays visible beside a
// deep one; cells that are walls in both runs in grey, those a wall in one run only in a colour of
// their own. The relief is not drawn: the runs kept none at the difference's resolution.
import { formatNumber } from '../../charts/format'
import { DIVERGING_STOPS, rampColor } from '../../charts/theme'
import type { CommonGrid, DifferenceMap } from '../../grid-difference'
import { beyondGrid, type ColorBar, type FrameLayout, paintMapFrame } from './map-frame'
import { FULL_VIEW, type MapView } from './map-view'
import type { Painter } from './painters'
import { scalePosition, squareRootScale, type ThicknessScale } from './thickness-frame'

/** Cells that are walls (NODATA) in both runs: a grey the diverging colours do not use. */
export const BOTH_WALLS_COLOR = '#8c959f'
/** Cells that are a wall in one run only: green, apart from the blues and reds. */
export const ONE_WALL_COLOR = '#1b7837'

/** What the difference frame is drawn from: the comparison's grid and map, its greatest |Δh|, and the runs' names. */
export interface DifferenceSource {
  grid: CommonGrid
  map: DifferenceMap
  maxAbs: number
  /** A's and B's names as the dashboard shows them (a label, or when the run started). */
  names: [string, string]
}

/** 0 to a round top at or above the greatest |Δh|, the same each side of 0. */
export function differenceScale(maxAbs: number): ThicknessScale {
  return maxAbs > 0 ? squareRootScale(maxAbs) : { top: 1, ticks: [0, 1] }
}

/** Where `delta` falls along the colour bar: 0 at −top, ½ at 0, 1 at +top. */
export function differencePosition(scale: ThicknessScale, delta: number): number {
  return 0.5 + (Math.sign(delta) * scalePosition(scale, Math.abs(delta))) / 2
}

export function differenceColor(scale: ThicknessScale, delta: number): string {
  return rampColor(DIVERGING_STOPS, differencePosition(scale, delta))
}

/** The colour of every map cell, row-major: a wall in one run only, a difference, walls in both, or null (beyond the grid: background). */
export function differenceCellColors(source: Pick<DifferenceSource, 'grid' | 'map'>, scale: ThicknessScale): (string | null)[] {
  const { map, grid } = source
  const oneWall = new Set(map.wallsDiffer)
  return map.values.map((v, k) => {
    if (oneWall.has(k)) return ONE_WALL_COLOR
    if (v !== null) return differenceColor(scale, v)
    return beyondGrid(map, grid.rows, grid.cols, Math.floor(k / map.size), k % map.size) ? null : BOTH_WALLS_COLOR
  })
}

export const DIFFERENCE_TITLE = 'Final debris thickness, B − A'

/** `view`: the part of the map in sight (the dashboard's zoom). */
export function paintDifference(p: Painter, source: DifferenceSource, layout: FrameLayout, view: MapView = FULL_VIEW): void {
  const { map, grid, names } = source
  const scale = differenceScale(source.maxAbs)
  const cells = map.block === 1 ? 'a grid cell' : `largest |Δh| of ${map.block} × ${map.block} grid cells`
  const subtitle = `B: ${names[1]} − A: ${names[0]} · map cell ${formatNumber(map.block * grid.cellsize, 4)} m (${cells})`
  paintMapFrame(p, { title: DIFFERENCE_TITLE, subtitle, grid, window: map, colors: differenceCellColors(source, scale), bar: differenceBar(scale) }, layout, view)
}

/** Ticks each side of 0, the same distances up and down. */
function differenceBar(scale: ThicknessScale): ColorBar {
  const up = scale.ticks.filter((t) => t > 0)
  const ticks = [...up.map((t) => -t).reverse(), 0, ...up]
  return {
    label: 'Δh (m)',
    color: (t) => rampColor(DIVERGING_STOPS, t),
    ticks: ticks.map((t) => ({ value: t, at: differencePosition(scale, t) })),
    notes: ['square-root scale', 'red: more in B'],
    swatches: [
      { color: BOTH_WALLS_COLOR, label: 'NODATA in both' },
      { color: ONE_WALL_COLOR, label: 'NODATA in one' },
    ],
  }
}
