// A map of a square window of the grid, drawn as a frame: its cells in colour (runs of one colour
// along a row as one rectangle), a title and a line under it, the map coordinates on the left and
// bottom edges with a scale bar, and a colour bar with its legend right of the map. The thickness
// frames (thickness-frame.ts) and the difference of two runs' final grids (difference-frame.ts) are
// both drawn by it, on a canvas or as SVG, whole or in a zoomed view.
import { formatNumber } from '../../charts/format'
import { AXIS_COLOR, BACKGROUND_COLOR, MUTED_TEXT_COLOR, TEXT_COLOR } from '../../charts/theme'
import { FULL_VIEW, type MapView, viewExtent } from './map-view'
import type { Painter } from './painters'
import { crsText, type LandslideGrid, type ThicknessMap } from './types'

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

/** Where a map lies on the grid: its top-left grid cell, its side in map cells and the grid cells a map cell covers. */
export type MapWindow = Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'>
/** What the frame's coordinates need of the grid. */
export type MapGrid = Pick<LandslideGrid, 'rows' | 'cols' | 'cellsize' | 'xllcorner' | 'yllcorner' | 'crs'>

/** Whether map cell (r, c) covers no grid cell at all (the window reaches past the grid's edge). */
export function beyondGrid(map: MapWindow, rows: number, cols: number, r: number, c: number): boolean {
  const i = map.row0 + r * map.block
  const j = map.col0 + c * map.block
  return i + map.block <= 0 || i >= rows || j + map.block <= 0 || j >= cols
}

/** The colour bar right of the map and its legend. */
export interface ColorBar {
  /** Over the bar, e.g. `h (m)`. */
  label: string
  /** The colour at `t`, 0 at the bar's foot … 1 at its top. */
  color(t: number): string
  /** Values marked along the bar, each at its place 0…1 from the foot. */
  ticks: { value: number; at: number }[]
  /** Lines under the bar (the scale's kind, what is left clear). */
  notes: string[]
  /** Colours of their own under the notes (walls), each with what it stands for. */
  swatches: { color: string; label: string }[]
}

/** What a map frame shows: a window of the grid, a colour (or none: background) per map cell, row-major. */
export interface MapFrame {
  title: string
  /** The line under the title. */
  subtitle: string
  grid: MapGrid
  window: MapWindow
  colors: (string | null)[]
  bar: ColorBar
}

/** `view`: the part of the map in sight, magnified to fill the map's square (the dashboard's zoom); the exports draw it whole. */
export function paintMapFrame(p: Painter, frame: MapFrame, layout: FrameLayout, view: MapView = FULL_VIEW): void {
  const u = (v: number) => Math.round(v * layout.scale)
  const { cell, mapX, mapY, mapSide } = layout
  const { window: map, colors } = frame
  p.rect(0, 0, layout.width, layout.height, BACKGROUND_COLOR)
  p.text(frame.title, mapX, u(16), { size: u(16), bold: true, color: TEXT_COLOR, baseline: 'top' })
  p.text(frame.subtitle, mapX, u(40), { size: u(12), color: MUTED_TEXT_COLOR, baseline: 'top' })

  // Runs of one colour along a row as one rectangle: fewer elements in the SVG, no seams on canvas.
  // Cell edges fall on whole pixels, cut to the map's square (a zoomed view shows part of the window).
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
  paintCoordinates(p, frame.grid, viewExtent(frame.grid, map, view), layout, u)
  paintColorBar(p, frame.bar, layout, u)
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
export function mapCoordinates(grid: Pick<LandslideGrid, 'rows' | 'cellsize' | 'xllcorner' | 'yllcorner'>, map: MapWindow): { west: number; north: number; metres: number } {
  return viewExtent(grid, map, FULL_VIEW)
}

/** `extent`: the part of the map drawn (mapCoordinates for the whole window). */
function paintCoordinates(p: Painter, grid: MapGrid, extent: { west: number; north: number; metres: number }, layout: FrameLayout, u: (v: number) => number): void {
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
  p.text(`x, y (m; CRS ${crsText(grid.crs)})`, mapX, mapY + mapSide + u(22), { ...style, baseline: 'top' })
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

function paintColorBar(p: Painter, bar: ColorBar, layout: FrameLayout, u: (v: number) => number): void {
  const { barX, barY, barWidth, barHeight } = layout
  p.text(bar.label, barX, barY - u(8), { size: u(12), color: TEXT_COLOR, baseline: 'alphabetic' })
  const bands = 64
  for (let i = 0; i < bands; i++) {
    const y0 = barY + Math.round((i * barHeight) / bands)
    const y1 = barY + Math.round(((i + 1) * barHeight) / bands)
    p.rect(barX, y0, barWidth, y1 - y0, bar.color(1 - (i + 0.5) / bands))
  }
  p.outline(barX, barY, barWidth, barHeight, AXIS_COLOR, Math.max(1, u(1)))
  for (const t of bar.ticks) {
    const y = barY + Math.round((1 - t.at) * barHeight)
    p.rect(barX + barWidth, y - Math.floor(Math.max(1, u(1)) / 2), u(4), Math.max(1, u(1)), AXIS_COLOR)
    p.text(formatNumber(t.value, 3), barX + barWidth + u(7), y, { size: u(11), color: MUTED_TEXT_COLOR, baseline: 'middle' })
  }
  const noteY = barY + barHeight + u(22)
  const small = { size: u(11), color: MUTED_TEXT_COLOR, baseline: 'middle' } as const
  bar.notes.forEach((note, i) => p.text(note, barX, noteY + u(18 * i), small))
  bar.swatches.forEach(({ color, label }, i) => {
    const y = noteY + u(18 * bar.notes.length + 4 + 18 * i)
    p.rect(barX, y - u(6), barWidth, u(12), color)
    p.text(label, barX + barWidth + u(7), y, small)
  })
}
