// One frame of the landslide's animation: the debris thickness of a recorded map in colour over the
// DEM's hillshade in grey, NODATA walls in their own colour, with a title, map coordinates (easting
// and northing from the grid's header) and a scale bar, the colour scale in metres and a legend. The dashboard's player, its PNG, SVG and GIF exports and `--out` all draw
// it here, so they show the same picture.
import { formatNumber } from '../../charts/format'
import { AXIS_COLOR, BACKGROUND_COLOR, type ColorStops, MUTED_TEXT_COLOR, TEXT_COLOR, hexColor, rampColor } from '../../charts/theme'
import { FULL_VIEW, type MapView, viewExtent } from './map-view'
import { type Painter, SvgPainter } from './painters'
import { crsText, P_EPSILON, type LandslideGrid, type LandslideResult, type ThicknessMap } from './types'

/** What a frame is drawn from: a job's results, or the frames `landslide simulate` recorded. */
export type FrameSource = Pick<LandslideResult, 'steps' | 'maps' | 'hillshade'> & {
  grid: Pick<LandslideGrid, 'rows' | 'cols' | 'cellsize' | 'xllcorner' | 'yllcorner' | 'crs'>
}

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
  if (!(max > P_EPSILON)) return { top: 1, ticks: [0, 0.25, 1] }
  // The top: a step of 1, 2, 2.5 or 5 × 10ⁿ above the deepest debris, in at most five steps.
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

/** Where everything goes, in output pixels (`scale` pixels per layout pixel). */
export interface FrameLayout {
  scale: number
  width: number
  height: number
  /** Pixels per map cell: a whole number, so cells tile without seams. */
  cell: number
  mapX: number
  mapY: number
  mapSide: number
  barX: number
  barY: number
  barWidth: number
  barHeight: number
}

/** The map's side at scale 1, about: cells take whole pixels. */
const MAP_TARGET = 448
/** Below the map: the eastings, then the scale bar. */
const MAP_FOOT = 58

/** The frame's width beside the map's side, at scale 1: the northings left of the map, the colour bar and its legend right of it. */
export const FRAME_MARGINS = 232

/** `mapTarget`: the map's side about, at scale 1 (the dashboard's fills its panel; the exports keep MAP_TARGET). */
export function frameLayout(mapSize: number, scale = 1, mapTarget = MAP_TARGET): FrameLayout {
  const u = (v: number) => Math.round(v * scale)
  const cell = Math.max(1, Math.round(Math.max(1, Math.floor(mapTarget / mapSize)) * scale))
  const mapSide = cell * mapSize
  // Room left of the map for the northings, below it for the eastings and the scale bar.
  const mapX = u(78)
  const mapY = u(64)
  const barX = mapX + mapSide + u(28)
  const barY = mapY + u(22)
  const barWidth = u(16)
  const barHeight = Math.max(u(120), Math.round(mapSide * 0.55))
  const legendBottom = barY + barHeight + u(90)
  return {
    scale,
    width: barX + barWidth + u(110),
    height: Math.max(mapY + mapSide + u(MAP_FOOT), legendBottom) + u(16),
    cell,
    mapX,
    mapY,
    mapSide,
    barX,
    barY,
    barWidth,
    barHeight,
  }
}

/** Whether map cell (r, c) covers no grid cell at all (the window reaches past the grid's edge). */
function beyondGrid(map: ThicknessMap, rows: number, cols: number, r: number, c: number): boolean {
  const i = map.row0 + r * map.block
  const j = map.col0 + c * map.block
  return i + map.block <= 0 || i >= rows || j + map.block <= 0 || j >= cols
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
export function fullFrameWindow(last: Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'>): Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'> {
  const side = last.size * last.block
  const block = Math.ceil(side / FULL_SIDE)
  return { row0: last.row0, col0: last.col0, size: Math.ceil(side / block), block }
}

/** The frame's title: what the exports' and the dashboard's captions name. */
/**
 * What part of the grid a map shows and how it was reduced: the window around where the debris
 * went (the rest of the grid is cropped) and the block of grid cells each map cell stands for (its
 * deepest), so a map is never read as the whole grid at full resolution.
 */
export function mapExtent(map: Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'>, grid: Pick<LandslideGrid, 'rows' | 'cols'>): string {
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
  const u = (v: number) => Math.round(v * layout.scale)
  const { cell, mapX, mapY, mapSide } = layout
  p.rect(0, 0, layout.width, layout.height, BACKGROUND_COLOR)

  p.text(frameTitle(map, result.steps), mapX, u(16), { size: u(16), bold: true, color: TEXT_COLOR, baseline: 'top' })
  const metres = map.block * result.grid.cellsize
  const relief = result.hillshade ? `over the hillshaded DEM, sun from ${result.hillshade.azimuth}° at ${result.hillshade.altitude}°` : 'no relief recorded for this run'
  const cells = map.block === 1 ? 'a grid cell' : `max of ${map.block} × ${map.block} grid cells`
  p.text(`${relief} · map cell ${formatNumber(metres, 4)} m (${cells})`, mapX, u(40), {
    size: u(12),
    color: MUTED_TEXT_COLOR,
    baseline: 'top',
  })

  // Runs of one colour along a row as one rectangle: fewer elements in the SVG, no seams on canvas.
  // Cell edges fall on whole pixels, cut to the map's square (a zoomed view shows part of the window).
  const colors = frameCellColors(result, map, scale)
  const per = cell * view.zoom
  const edge = (origin: number, at: number, v0: number) => Math.min(origin + mapSide, Math.max(origin, origin + Math.round((at - v0) * per)))
  const [r0, c0] = [Math.max(0, Math.floor(view.y0)), Math.max(0, Math.floor(view.x0))]
  const last = (v0: number) => Math.min(map.size, Math.ceil(v0 + map.size / view.zoom))
  for (let r = r0; r < last(view.y0); r++) {
    const [y, y1] = [edge(mapY, r, view.y0), edge(mapY, r + 1, view.y0)]
    let c = c0
    while (c < last(view.x0)) {
      const color = colors[r * map.size + c]
      let end = c + 1
      while (end < last(view.x0) && colors[r * map.size + end] === color) end++
      const x = edge(mapX, c, view.x0)
      const x1 = edge(mapX, end, view.x0)
      if (color !== null && x1 > x && y1 > y) p.rect(x, y, x1 - x, y1 - y, color)
      c = end
    }
  }
  p.outline(mapX, mapY, mapSide, mapSide, AXIS_COLOR, Math.max(1, u(1)))
  paintCoordinates(p, result, viewExtent(result.grid, map, view), layout, u)

  paintLegend(p, layout, scale, u)
}

/** A round length of 1, 2 or 5 × 10ⁿ at or below `v`. */
export function roundLength(v: number): number {
  const power = 10 ** Math.floor(Math.log10(v))
  return [5, 2, 1].map((m) => m * power).find((s) => s <= v * (1 + 1e-9)) ?? power
}

const metresText = (m: number) => (m >= 1000 ? `${formatNumber(m / 1000, 4)} km` : `${formatNumber(m, 4)} m`)

/**
 * The window's map coordinates from the grid's header (x = xllcorner + column · cellsize, y from the
 * grid's south edge up; row 0 is the north), ticked every round step on the left and bottom edges,
 * and a scale bar about a quarter of the map wide under them.
 */
export function mapCoordinates(grid: FrameSource['grid'], map: ThicknessMap): { west: number; north: number; metres: number } {
  return viewExtent(grid, map, FULL_VIEW)
}

/** `extent`: the part of the map drawn (mapCoordinates for the whole window). */
function paintCoordinates(p: Painter, result: FrameSource, extent: { west: number; north: number; metres: number }, layout: FrameLayout, u: (v: number) => number): void {
  const { mapX, mapY, mapSide } = layout
  const { west, north, metres } = extent
  const perPixel = metres / mapSide
  const step = roundLength(metres / 4)
  const tick = Math.max(1, u(1))
  const style = { size: u(10), color: MUTED_TEXT_COLOR }
  for (let x = Math.ceil(west / step) * step; x <= west + metres + 1e-9; x += step) {
    const px = mapX + Math.round((x - west) / perPixel)
    p.rect(px, mapY + mapSide, tick, u(4), AXIS_COLOR)
    p.text(formatNumber(x, 9), px, mapY + mapSide + u(6), { ...style, align: 'center', baseline: 'top' })
  }
  for (let y = Math.floor(north / step) * step; y >= north - metres - 1e-9; y -= step) {
    const py = mapY + Math.round((north - y) / perPixel)
    p.rect(mapX - u(4), py, u(4), tick, AXIS_COLOR)
    p.text(formatNumber(y, 9), mapX - u(6), py, { ...style, align: 'right', baseline: 'middle' })
  }
  p.text(`x, y (m; CRS ${crsText(result.grid.crs)})`, mapX, mapY + mapSide + u(22), { ...style, baseline: 'top' })
  // The scale bar: two halves, dark and light, under the coordinates on the right.
  const length = roundLength(metres / 4)
  const width = Math.round(length / perPixel)
  const barY = mapY + mapSide + u(40)
  const x0 = mapX + mapSide - width
  const half = Math.round(width / 2)
  p.rect(x0, barY, half, u(5), TEXT_COLOR)
  p.rect(x0 + half, barY, width - half, u(5), BACKGROUND_COLOR)
  p.outline(x0, barY, width, u(5), TEXT_COLOR, tick)
  p.text(metresText(length), x0 - u(6), barY + u(3), { ...style, color: TEXT_COLOR, align: 'right', baseline: 'middle' })
}

function paintLegend(p: Painter, layout: FrameLayout, scale: ThicknessScale, u: (v: number) => number): void {
  const { barX, barY, barWidth, barHeight } = layout
  p.text('h (m)', barX, barY - u(8), { size: u(12), color: TEXT_COLOR, baseline: 'alphabetic' })
  const bands = 64
  for (let i = 0; i < bands; i++) {
    const y0 = barY + Math.round((i * barHeight) / bands)
    const y1 = barY + Math.round(((i + 1) * barHeight) / bands)
    p.rect(barX, y0, barWidth, y1 - y0, thicknessColor(1 - (i + 0.5) / bands))
  }
  p.outline(barX, barY, barWidth, barHeight, AXIS_COLOR, Math.max(1, u(1)))
  for (const t of scale.ticks) {
    const y = barY + Math.round((1 - scalePosition(scale, t)) * barHeight)
    p.rect(barX + barWidth, y - Math.floor(Math.max(1, u(1)) / 2), u(4), Math.max(1, u(1)), AXIS_COLOR)
    p.text(formatNumber(t, 3), barX + barWidth + u(7), y, { size: u(11), color: MUTED_TEXT_COLOR, baseline: 'middle' })
  }
  const noteY = barY + barHeight + u(22)
  p.text('square-root scale', barX, noteY, { size: u(11), color: MUTED_TEXT_COLOR, baseline: 'middle' })
  p.text(`clear: h ≤ ${P_EPSILON} m`, barX, noteY + u(18), { size: u(11), color: MUTED_TEXT_COLOR, baseline: 'middle' })
  const swatchY = noteY + u(40)
  p.rect(barX, swatchY - u(6), barWidth, u(12), WALL_COLOR)
  p.text('NODATA', barX + barWidth + u(7), swatchY, { size: u(11), color: MUTED_TEXT_COLOR, baseline: 'middle' })
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
