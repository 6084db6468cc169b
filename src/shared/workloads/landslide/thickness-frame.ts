// One frame of the landslide's animation: the debris thickness of a recorded map in colour over the
// DEM's hillshade in grey, NODATA walls in their own colour, with the colour scale in metres; the
// frame around it (title, map coordinates, scale bar, legend) is map-frame.ts's. The dashboard's
// player, its PNG, SVG and GIF exports and `--out` all draw it here, so they show the same picture.
import { formatNumber } from '../../charts/format'
import { type ColorStops, hexColor, rampColor } from '../../charts/theme'
import { beyondGrid, type ColorBar, frameLayout, type FrameLayout, type MapGrid, type MapWindow, paintMapFrame } from './map-frame'
import { FULL_VIEW, type MapView } from './map-view'
import { type Painter, SvgPainter } from './painters'
import { P_EPSILON, type LandslideResult, type ThicknessMap } from './types'

/** What a frame is drawn from: a job's results, or the frames `landslide simulate` recorded. */
export type FrameSource = Pick<LandslideResult, 'steps' | 'maps' | 'hillshade'> & { grid: MapGrid }

/** Thin debris light, thick dark (ColorBrewer YlOrRd): distinct from the grey relief, and ordered by lightness in greyscale too. */
const STOPS: ColorStops = [
  [0, [255, 237, 160]],
  [0.25, [254, 178, 76]],
  [0.5, [252, 78, 42]],
  [0.75, [189, 0, 38]],
  [1, [102, 0, 38]],
]
/** NODATA cells (walls): a blue that neither the relief nor the thickness scale uses. */
export const WALL_COLOR = '#5b7fa8'
/** Grid cells where no relief was recorded (runs saved before it was). */
const NO_RELIEF_COLOR = '#d0d7de'

/** The colour of `t` in 0…1 along the colour bar. */
export function thicknessColor(t: number): string {
  return rampColor(STOPS, t)
}

/** A hillshade value (0…255) as a grey, kept off black and white so colours and text stay readable on it. */
export function reliefColor(shade: number): string {
  const g = Math.round(40 + (Math.min(255, Math.max(0, shade)) * 190) / 255)
  return hexColor([g, g, g])
}

/**
 * One colour scale for every frame of a run, so frames compare: 0 to a round top at or above the
 * deepest debris, by the square root of the thickness, so a thin spreading tongue stays apart from
 * the deep source instead of fading into one pale colour.
 */
export interface ThicknessScale {
  top: number
  ticks: number[]
}

/** Where `h` metres fall along the colour bar, 0…1. */
export function scalePosition(scale: ThicknessScale, h: number): number {
  return Math.sqrt(Math.min(1, Math.max(0, h / scale.top)))
}

export function thicknessScale(maps: readonly ThicknessMap[]): ThicknessScale {
  let max = 0
  for (const m of maps) for (const v of m.values) if (v !== null && v > max) max = v
  return max > P_EPSILON ? squareRootScale(max) : { top: 1, ticks: [0, 0.25, 1] }
}

/** A square-root scale from 0 to a round top at or above `max` (> 0), with ticks about evenly along the bar. */
export function squareRootScale(max: number): ThicknessScale {
  // The top: a step of 1, 2, 2.5 or 5 × 10ⁿ above `max`, in at most five steps.
  const raw = max / 5
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw)!
  const top = Number((Math.ceil(max / step - 1e-9) * step).toPrecision(12))
  // Ticks about evenly along the bar (so by the square of its position), rounded to 1, 2 or 5 × 10ⁿ,
  // dropped where they would crowd a neighbour.
  const ticks = [0]
  const scale = { top, ticks }
  for (let k = 1; k <= 5; k++) {
    const t = k === 5 ? top : roundTo125(top * (k / 5) ** 2)
    const last = ticks[ticks.length - 1]
    if (t <= last || t > top) continue
    if (k < 5 && scalePosition(scale, top) - scalePosition(scale, t) < 0.1) continue
    if (scalePosition(scale, t) - scalePosition(scale, last) < 0.1) {
      if (k < 5) continue
      ticks.pop()
    }
    ticks.push(t)
  }
  return scale
}

/** The nearest of 1, 2, 5 × 10ⁿ. */
function roundTo125(x: number): number {
  const power = 10 ** Math.floor(Math.log10(x))
  const candidates = [1, 2, 5, 10].map((m) => Number((m * power).toPrecision(12)))
  return candidates.reduce((best, c) => (Math.abs(c - x) < Math.abs(best - x) ? c : best))
}

/** The colour of every map cell, row-major: debris, relief, wall, or null (beyond the grid: background). */
export function frameCellColors(result: FrameSource, map: ThicknessMap, scale: ThicknessScale): (string | null)[] {
  const relief = result.hillshade
  // A relief recorded over another window (it never is) would misplace the terrain: leave it out.
  const fits = relief && relief.size === map.size && relief.block === map.block && relief.row0 === map.row0 && relief.col0 === map.col0
  return map.values.map((v, k) => {
    if (v !== null && v > P_EPSILON) return thicknessColor(scalePosition(scale, v))
    const r = Math.floor(k / map.size)
    const c = k % map.size
    if (beyondGrid(map, result.grid.rows, result.grid.cols, r, c)) return null
    if (!fits) return NO_RELIEF_COLOR
    const shade = relief.values[k]
    return shade === null ? WALL_COLOR : reliefColor(shade)
  })
}

const stepsText = (n: number) => n.toLocaleString('en-US')

/** Map cells a side at most of the "full-resolution" final frame: beyond, blocks again (a 1024-cell map is 2048 PNG pixels). */
export const FULL_SIDE = 1024

/**
 * The full-resolution final frame's window: the last map's, one map cell per grid cell up to
 * FULL_SIDE a side, and beyond that the smallest block that fits (each map cell the deepest of its
 * block), so the picture stays bounded whatever the grid (7 320 × 6 944 cells: 8 × 8 blocks).
 */
export function fullFrameWindow(last: MapWindow): MapWindow {
  const side = last.size * last.block
  const block = Math.ceil(side / FULL_SIDE)
  return { row0: last.row0, col0: last.col0, size: Math.ceil(side / block), block }
}

/**
 * What part of the grid a map shows and how it was reduced: the window around where the debris
 * went (the rest of the grid is cropped) and the block of grid cells each map cell stands for (its
 * deepest), so a map is never read as the whole grid at full resolution.
 */
export function mapExtent(map: MapWindow, grid: Pick<MapGrid, 'rows' | 'cols'>): string {
  const span = map.size * map.block
  const [r1, c1] = [Math.min(grid.rows, map.row0 + span) - 1, Math.min(grid.cols, map.col0 + span) - 1]
  const n = (v: number) => v.toLocaleString('en-US')
  const whole = map.row0 === 0 && map.col0 === 0 && r1 === grid.rows - 1 && c1 === grid.cols - 1
  const where = whole
    ? `The whole ${n(grid.rows)} × ${n(grid.cols)} grid`
    : `Rows ${n(map.row0)}–${n(r1)} and columns ${n(map.col0)}–${n(c1)} of the ${n(grid.rows)} × ${n(grid.cols)} grid, cropped to where the debris went`
  const cells = map.block === 1 ? 'each map cell is one grid cell' : `each map cell is the deepest of its ${map.block} × ${map.block} grid cells`
  return `${where}; ${cells}.`
}

/** The frame's title: what the exports' and the dashboard's captions name. */
export function frameTitle(map: ThicknessMap, steps: number): string {
  return `Debris thickness after ${stepsText(map.step)} steps (of ${stepsText(steps)})`
}

/** `view`: the part of the map in sight, magnified to fill the map's square (the dashboard's zoom); the exports draw it whole. */
export function paintFrame(
  p: Painter,
  result: FrameSource,
  index: number,
  layout: FrameLayout,
  scale: ThicknessScale = thicknessScale(result.maps),
  view: MapView = FULL_VIEW,
): void {
  const map = result.maps[index]
  if (!map) throw new RangeError(`landslide frame ${index}: the run recorded ${result.maps.length} maps`)
  const metres = map.block * result.grid.cellsize
  const relief = result.hillshade ? `over the hillshaded DEM, sun from ${result.hillshade.azimuth}° at ${result.hillshade.altitude}°` : 'no relief recorded for this run'
  const cells = map.block === 1 ? 'a grid cell' : `max of ${map.block} × ${map.block} grid cells`
  const subtitle = `${relief} · map cell ${formatNumber(metres, 4)} m (${cells})`
  paintMapFrame(p, { title: frameTitle(map, result.steps), subtitle, grid: result.grid, window: map, colors: frameCellColors(result, map, scale), bar: thicknessBar(scale) }, layout, view)
}

/** The thickness's colour bar: square-root, the clear threshold and the walls' colour under it. */
function thicknessBar(scale: ThicknessScale): ColorBar {
  return {
    label: 'h (m)',
    color: thicknessColor,
    ticks: scale.ticks.map((t) => ({ value: t, at: scalePosition(scale, t) })),
    notes: ['square-root scale', `clear: h ≤ ${P_EPSILON} m`],
    swatches: [{ color: WALL_COLOR, label: 'NODATA' }],
  }
}

/** The frame as an SVG document. */
export function frameSvg(result: FrameSource, index: number, scale: ThicknessScale = thicknessScale(result.maps)): string {
  return [...frameSvgPieces(result, index, scale)].join('')
}

/** The frame's SVG document in pieces, which end to end are the document: a full-resolution frame is sent without being made whole. */
export function frameSvgPieces(result: FrameSource, index: number, scale: ThicknessScale = thicknessScale(result.maps)): Generator<string> {
  const layout = frameLayout(result.maps[index]?.size ?? 1)
  const svg = new SvgPainter()
  paintFrame(svg, result, index, layout, scale)
  return svg.pieces(layout.width, layout.height)
}
