// The landslide map's zoom, pan and read-out: a view keeps the point under the pointer where it is
// and stays inside the window, the zoomed frame draws only the cells in sight (magnified, cut to the
// map's square) with the view's coordinates, and the read-out gives the block a value stands for, its
// h and the ground's elevation (the block's mean of the carved DEM, walls left out).
import { describe, expect, it } from 'vitest'
import { elevationMap } from '../../src/main/workloads/landslide/hillshade'
import { mapReadout } from '../../src/renderer/workloads/landslide/map-readout'
import { clampView, FULL_VIEW, MAX_ZOOM, panBy, viewExtent, viewPoint, zoomAbout, zoomCentre } from '../../src/shared/workloads/landslide/map-view'
import type { Painter } from '../../src/shared/workloads/landslide/painters'
import { frameCellColors, paintFrame, thicknessScale } from '../../src/shared/workloads/landslide/thickness-frame'
import { frameLayout, mapCoordinates } from '../../src/shared/workloads/landslide/map-frame'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'

describe('a map view', () => {
  it('zooms about a point that stays where it is on screen, within the window', () => {
    const layout = frameLayout(8)
    const v = zoomAbout(FULL_VIEW, 8, 2, 3, 5)
    expect(v.zoom).toBe(2)
    // Map point (3, 5) was at 3 and 5 cells from the map's corner, and still is.
    const at = { x: layout.mapX + 3 * layout.cell, y: layout.mapY + 5 * layout.cell }
    expect(viewPoint(layout, v, at.x, at.y)).toEqual({ u: 3, w: 5 })
    expect(viewPoint(layout, v, layout.mapX - 1, at.y)).toBeNull()
    expect(viewPoint(layout, v, at.x, layout.mapY + layout.mapSide)).toBeNull()
    // Zoomed about a corner the view stays inside the window; zooming out past 1 is the whole map.
    expect(zoomAbout(FULL_VIEW, 8, 4, 8, 8)).toEqual({ x0: 6, y0: 6, zoom: 4 })
    expect(zoomCentre(v, 8, 0.25)).toEqual(FULL_VIEW)
    expect(zoomCentre(FULL_VIEW, 8, 1000).zoom).toBe(MAX_ZOOM)
    expect(zoomCentre(FULL_VIEW, 8, 2)).toEqual({ x0: 2, y0: 2, zoom: 2 })
  })

  it('pans within the window', () => {
    const v = { x0: 2, y0: 2, zoom: 2 }
    expect(panBy(v, 8, 1, -1)).toEqual({ x0: 3, y0: 1, zoom: 2 })
    expect(panBy(v, 8, 10, -10)).toEqual({ x0: 4, y0: 0, zoom: 2 })
    expect(panBy(FULL_VIEW, 8, 3, 3)).toEqual(FULL_VIEW)
    expect(clampView({ x0: NaN, y0: 1, zoom: 0.5 }, 8)).toEqual(FULL_VIEW)
  })
})

/** A 4 × 4 window of 2 × 2 blocks over a 7 × 8 grid (its last row of blocks half beyond it), every cell a colour of its own. */
const result = (): LandslideResult => ({
  grid: { rows: 7, cols: 8, cellsize: 10, xllcorner: 1000, yllcorner: 5000, nodata: -9999, walls: 1, files: { dem: 'd.asc', source: 's.asc' } },
  steps: 10,
  reference: { backend: 'serial', md5: '0'.repeat(32), mass_start: 1, mass_end: 1 },
  runs: {},
  series: { step: [0, 10], mass: [1, 1], flooded: [1, 1], max_thickness: [1, 1], active: [1, 1] },
  maps: [{ step: 10, row0: 0, col0: 0, size: 4, block: 2, values: Array.from({ length: 16 }, (_, k) => (k === 5 ? null : (k + 1) / 4)) }],
  hillshade: {
    row0: 0,
    col0: 0,
    size: 4,
    block: 2,
    azimuth: 315,
    altitude: 45,
    values: Array.from({ length: 16 }, (_, k) => (k === 5 ? null : 100)),
    elevation: Array.from({ length: 16 }, (_, k) => (k === 5 ? null : 200 + k)),
  },
  skipped: [],
})

describe('a zoomed frame', () => {
  it('draws the cells in sight, magnified and cut to the map, with the view\'s coordinates', () => {
    const r = result()
    const layout = frameLayout(4)
    const rects: { x: number; y: number; w: number; h: number; color: string }[] = []
    const texts: string[] = []
    const painter: Painter = { rect: (x, y, w, h, color) => rects.push({ x, y, w, h, color }), outline: () => {}, text: (t) => texts.push(t) }
    const view = { x0: 1.5, y0: 1, zoom: 2 }
    paintFrame(painter, r, 0, layout, thicknessScale(r.maps), view)
    const colors = frameCellColors(r, r.maps[0], thicknessScale(r.maps))
    const inMap = rects.filter((q) => q.x >= layout.mapX && q.y >= layout.mapY && q.x + q.w <= layout.mapX + layout.mapSide && q.y + q.h <= layout.mapY + layout.mapSide && q.w < layout.mapSide)
    const per = 2 * layout.cell
    // Map cell (1, 1) is a wall, half in sight at the left; (1, 2) next to it, whole; (2, 3) half at the right.
    expect(inMap).toContainEqual({ x: layout.mapX, y: layout.mapY, w: per / 2, h: per, color: colors[5] })
    expect(inMap).toContainEqual({ x: layout.mapX + per / 2, y: layout.mapY, w: per, h: per, color: colors[6] })
    expect(inMap).toContainEqual({ x: layout.mapX + (3 * per) / 2, y: layout.mapY + per, w: per / 2, h: per, color: colors[11] })
    // Cells out of sight are not drawn: row 0 and column 0 lie above and left of the view.
    expect(inMap.some((q) => q.color === colors[0] || q.color === colors[4])).toBe(false)
    // The ticks run over the view's extent: x from 1030 to 1070, y from 5050 down to 5010.
    expect(viewExtent(r.grid, r.maps[0], view)).toEqual({ west: 1030, north: 5050, metres: 40 })
    expect(mapCoordinates(r.grid, r.maps[0])).toEqual({ west: 1000, north: 5070, metres: 80 })
    expect(texts).toContain('1,040')
    expect(texts).not.toContain('1,000')
  })
})

describe('the read-out', () => {
  it('gives the block under the point, its deepest h, its mean elevation and the point\'s coordinates', () => {
    const r = result()
    expect(mapReadout(r, 0, 2.5, 1.25)).toEqual({ row: 1, col: 2, rows: [2, 3], cols: [4, 5], x: 1050, y: 5045, h: 7 / 4, wall: false, elevation: 206, block: 2 })
    expect(mapReadout(r, 0, 1.5, 1.5)).toMatchObject({ wall: true, h: 0, elevation: null })
    // The last row of blocks holds one grid row (row 6); the window's edge is no cell.
    expect(mapReadout(r, 0, 0.5, 3.5)).toMatchObject({ rows: [6, 6], cols: [0, 1] })
    expect(mapReadout(r, 0, 4, 0)).toBeNull()
    expect(mapReadout({ ...r, hillshade: undefined }, 0, 0, 0)).toMatchObject({ wall: false, elevation: null })
  })

  it('takes the elevation as the block\'s mean over cells that are not walls, beyond the grid none', () => {
    // z = 10 i + j on a 3 × 3 grid, the centre a wall; 2 × 2 blocks from row −1.
    const z = Float64Array.from({ length: 9 }, (_, k) => 10 * Math.floor(k / 3) + (k % 3))
    const walls = new Uint8Array(9)
    walls[4] = 1
    const values = elevationMap(z, 3, 3, walls, { row0: -1, col0: 0, size: 2, block: 2 })
    // Block (0, 0): row 0, columns 0–1. (0, 1): row 0, column 2. (1, 0): rows 1–2, columns 0–1 less the wall. (1, 1): rows 1–2, column 2.
    expect(values).toEqual([0.5, 2, (10 + 20 + 21) / 3, 17].map((v) => Math.round(v * 100) / 100))
    expect(elevationMap(z, 3, 3, Uint8Array.from([0, 0, 0, 0, 1, 0, 0, 0, 0]), { row0: 1, col0: 1, size: 1, block: 1 })).toEqual([null])
  })
})
