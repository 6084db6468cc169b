// Zoom and pan of the thickness map on screen, and what lies under the pointer. A view is the part
// of the map's window in sight, in map cells: the drawn map is magnified, its cells stay the run's
// (each a block of grid cells), so the read-out says which block a value stands for.
import type { LandslideGrid, ThicknessMap } from './types'

/** Where a frame draws its map (map-frame.ts's FrameLayout has these): its corner, side and cell in pixels. */
export interface MapPlacement {
  cell: number
  mapX: number
  mapY: number
  mapSide: number
}

/** The view's top-left corner in map cells from the window's top-left, and its magnification (1: the whole window). */
export interface MapView {
  x0: number
  y0: number
  zoom: number
}

export const FULL_VIEW: MapView = { x0: 0, y0: 0, zoom: 1 }
/** Beyond this a map cell is far wider than anything it could show. */
export const MAX_ZOOM = 32

type Window = Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'>
type Grid = Pick<LandslideGrid, 'rows' | 'cellsize' | 'xllcorner' | 'yllcorner'>

/** `v` kept inside the window: zoom 1 … MAX_ZOOM, the corner where the view does not run past the edges. */
export function clampView(v: MapView, size: number): MapView {
  const zoom = Math.min(MAX_ZOOM, Math.max(1, Number.isFinite(v.zoom) ? v.zoom : 1))
  const room = size - size / zoom
  const clamp = (a: number) => Math.min(room, Math.max(0, Number.isFinite(a) ? a : 0))
  return { x0: clamp(v.x0), y0: clamp(v.y0), zoom }
}

/** Zoomed by `factor` about the map point (u, w), in map cells, which stays where it is on screen. */
export function zoomAbout(v: MapView, size: number, factor: number, u: number, w: number): MapView {
  const zoom = Math.min(MAX_ZOOM, Math.max(1, v.zoom * factor))
  const keep = v.zoom / zoom
  return clampView({ x0: u - (u - v.x0) * keep, y0: w - (w - v.y0) * keep, zoom }, size)
}

/** Zoomed by `factor` about the view's centre. */
export function zoomCentre(v: MapView, size: number, factor: number): MapView {
  const half = size / v.zoom / 2
  return zoomAbout(v, size, factor, v.x0 + half, v.y0 + half)
}

/** Moved by (du, dw) map cells. */
export function panBy(v: MapView, size: number, du: number, dw: number): MapView {
  return clampView({ ...v, x0: v.x0 + du, y0: v.y0 + dw }, size)
}

/** Layout pixels per map cell in the view. */
export function cellPixels(layout: Pick<MapPlacement, 'cell'>, v: MapView): number {
  return layout.cell * v.zoom
}

/** The map point (u, w), in map cells from the window's top-left, under layout pixel (px, py); null off the map. */
export function viewPoint(layout: MapPlacement, v: MapView, px: number, py: number): { u: number; w: number } | null {
  const dx = px - layout.mapX
  const dy = py - layout.mapY
  if (dx < 0 || dy < 0 || dx >= layout.mapSide || dy >= layout.mapSide) return null
  const per = cellPixels(layout, v)
  return { u: v.x0 + dx / per, w: v.y0 + dy / per }
}

/** The map coordinates of map point (u, w): x from the grid's west edge, y from its south edge (row 0 is the north). */
export function pointCoordinates(grid: Grid, map: Window, u: number, w: number): { x: number; y: number } {
  return {
    x: grid.xllcorner + (map.col0 + u * map.block) * grid.cellsize,
    y: grid.yllcorner + (grid.rows - map.row0 - w * map.block) * grid.cellsize,
  }
}

/** The view's west and north edges and its width, in map units (what the frame's ticks and scale bar show). */
export function viewExtent(grid: Grid, map: Window, v: MapView): { west: number; north: number; metres: number } {
  const { x: west, y: north } = pointCoordinates(grid, map, v.x0, v.y0)
  return { west, north, metres: (map.size * map.block * grid.cellsize) / v.zoom }
}
