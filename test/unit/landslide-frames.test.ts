// The landslide's pictures: Horn's hillshade on planes and ramps against values worked out by hand
// (edges, walls, block means over the maps' window), the thickness colour scale, a frame's cells
// (debris, clear thin debris, relief, NODATA, beyond the grid), the frame as SVG, the GIF encoder's
// output read back block by block, the job's relief and files (PNG, SVG, GIF on @napi-rs/canvas), and
// `landslide simulate --png/--gif`.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeGif } from '../../src/shared/gif-encoder'
import { landslideWorkload } from '../../src/shared/workloads/landslide'
import { validateParams } from '../../src/shared/workloads/schema'
import { FRAME_MS, LAST_FRAME_MS, thicknessGif } from '../../src/shared/workloads/landslide/thickness-animation'
import { frameCellColors, frameSvg, reliefColor, scalePosition, thicknessColor, thicknessScale, WALL_COLOR } from '../../src/shared/workloads/landslide/thickness-frame'
import { frameLayout } from '../../src/shared/workloads/landslide/map-frame'
import type { LandslideParams } from '../../src/shared/workloads/landslide'
import type { LandslideResult, ThicknessMap } from '../../src/shared/workloads/landslide/types'
import { writeExample } from '../../src/main/workloads/landslide/example'
import { hillshadeMap, hornShade } from '../../src/main/workloads/landslide/hillshade'
import { carve } from '../../src/main/workloads/landslide/sciddica'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { simulate } from '../../src/main/workloads/landslide/simulate'
import { simulateCommand } from '../../src/main/workloads/landslide/simulate-command'
import { lastFramePng, nodeRasterize, thicknessFiles } from '../../src/main/workloads/landslide/thickness-files'
import { readGif } from '../helpers/gif'
import { jobContext } from '../helpers/job-context'

/** A rows × cols DEM from z(i, j). */
const dem = (rows: number, cols: number, z: (i: number, j: number) => number) => Float64Array.from({ length: rows * cols }, (_, k) => z(Math.floor(k / cols), k % cols))

// Hand-worked with the sun at 315°, 45° high: 255·cos 45° on a flat plane; on a 45° slope
// 255·(½ + ½·cos(45° between the sun and the slope's facing)) when it faces west or north,
// 255·(½ − ½·cos 45°) when it faces east or south, 255 when it faces the sun.
const FLAT = 180.3122
const LIT = 217.6561
const SHADOWED = 37.3439

describe('hillshade (Horn)', () => {
  it('shades planes and 45° ramps facing each way as worked out by hand', () => {
    const cs = 10
    const shade = (z: (i: number, j: number) => number) => hornShade(dem(5, 5, z), 5, 5, null, cs, 2, 2)
    expect(shade(() => 100)).toBeCloseTo(FLAT, 3)
    // Rows run south: z rising with the column rises east, so the slope faces west, towards the sun.
    expect(shade((_, j) => j * cs)).toBeCloseTo(LIT, 3)
    expect(shade((_, j) => -j * cs)).toBeCloseTo(SHADOWED, 3)
    // Rising southwards it faces north; rising northwards it faces south.
    expect(shade((i) => i * cs)).toBeCloseTo(LIT, 3)
    expect(shade((i) => -i * cs)).toBeCloseTo(SHADOWED, 3)
    // Facing north-west, straight at the sun, at 45°: both gradients 1/√2.
    expect(shade((i, j) => ((i + j) * cs) / Math.SQRT2)).toBeCloseTo(255, 3)
    // The cell size scales the gradient: 10 m a cell over cells 20 m wide is a gradient of ½, facing
    // east: 255·(cos 45°·cos 26.57° − sin 45°·sin 26.57°·cos 45°).
    expect(hornShade(dem(5, 5, (_, j) => -j * 10), 5, 5, null, 20, 2, 2)).toBeCloseTo(104.2566, 3)
  })

  it('carves the source out a band of rows at a time, as a carved copy of the whole grid would', () => {
    const rows = 23
    const cols = 19
    const z = dem(rows, cols, (i, j) => Math.sin(i * 0.7 + j * 0.3) * 15 + i * 4 + j)
    const h = new Float64Array(rows * cols)
    for (let k = 0; k < h.length; k++) h[k] = k % 7 === 0 ? 2.5 : k % 5 === 0 ? 0.7 : 0
    const walls = new Uint8Array(rows * cols)
    walls[5 * cols + 6] = walls[5 * cols + 7] = walls[17 * cols + 3] = 1
    const carved = z.slice()
    carve(carved, h, rows, cols)
    for (const window of [{ row0: 0, col0: 0, size: 23, block: 1 }, { row0: 2, col0: 3, size: 5, block: 3 }, { row0: -1, col0: 0, size: 7, block: 4 }])
      expect(hillshadeMap(z, rows, cols, walls, 10, window, h), JSON.stringify(window)).toEqual(hillshadeMap(carved, rows, cols, walls, 10, window))
    // The DEM as read is left as it was.
    expect(z).toEqual(dem(rows, cols, (i, j) => Math.sin(i * 0.7 + j * 0.3) * 15 + i * 4 + j))
  })

  it('takes a missing neighbour (beyond the edge, or a wall) as the cell itself', () => {
    const cs = 10
    const ramp = dem(4, 4, (_, j) => j * cs)
    // On the west edge the west column is the cell's own: the gradient halves, to 0.5 (slope atan ½):
    // 255·(cos 45°·cos 26.57° + sin 45°·sin 26.57°·cos 45°) = 218.2959.
    expect(hornShade(ramp, 4, 4, null, cs, 1, 0)).toBeCloseTo(218.2959, 3)
    const walls = new Uint8Array(16)
    walls[0] = walls[4] = walls[8] = 1
    expect(hornShade(ramp, 4, 4, walls, cs, 1, 1)).toBeCloseTo(218.2959, 3)
    // A wall's NODATA value never enters a neighbour's slope.
    const holed = ramp.slice()
    holed[5] = -9999
    const wall5 = new Uint8Array(16)
    wall5[5] = 1
    expect(hornShade(holed, 4, 4, wall5, cs, 1, 2)).toBe(hornShade(ramp, 4, 4, wall5, cs, 1, 2))
    expect(hornShade(holed, 4, 4, wall5, cs, 1, 2)).toBeGreaterThan(0)
    // Next to a wall the neighbourhood is read cell by cell, elsewhere straight: both give the same
    // shade when the wall's stand-in (the cell itself) equals what it hides.
    const rough = dem(5, 5, (i, j) => Math.sin(i * 1.7 + j * 0.9) * 12 + i * 3)
    const beside = new Uint8Array(25)
    beside[6] = 1
    const same = rough.slice()
    same[6] = same[12]
    expect(hornShade(same, 5, 5, beside, cs, 2, 2)).toBe(hornShade(same, 5, 5, null, cs, 2, 2))
    expect(hornShade(rough, 5, 5, beside, cs, 2, 2)).not.toBe(hornShade(rough, 5, 5, null, cs, 2, 2))
  })

  it('reduces to the maps\' window: block means, null for walls and beyond the grid', () => {
    const cs = 10
    const rows = 4
    const cols = 4
    const z = dem(rows, cols, () => 50)
    const walls = new Uint8Array(16)
    // The top-right 2 × 2 block all walls; one wall in the bottom-left block.
    for (const k of [2, 3, 6, 7, 12]) walls[k] = 1
    const relief = hillshadeMap(z, rows, cols, walls, cs, { row0: 0, col0: 0, size: 2, block: 2 })
    expect(relief).toMatchObject({ row0: 0, col0: 0, size: 2, block: 2, azimuth: 315, altitude: 45 })
    expect(relief.values).toEqual([180, null, 180, 180])
    // A window reaching past the grid: the cells beyond hold nothing.
    const wide = hillshadeMap(z, rows, cols, null, cs, { row0: -1, col0: 3, size: 2, block: 1 })
    expect(wide.values).toEqual([null, null, 180, null])
    // A ridge running north–south: a west face at 218.2959 (see above) and an east face at
    // 255·(cos 45°·cos 26.57° − sin 45°·sin 26.57°·cos 45°) = 104.2566; their block's mean, 161.
    const roof = dem(4, 4, (_, j) => (j < 2 ? j : 3 - j) * cs)
    expect(hillshadeMap(roof, 4, 4, null, cs, { row0: 1, col0: 1, size: 1, block: 2 }).values).toEqual([161])
  })
})

const result = (): LandslideResult => ({
  grid: { rows: 3, cols: 3, cellsize: 10, xllcorner: 0, yllcorner: 0, nodata: -9999, walls: 1, files: { dem: 'd.asc', source: 's.asc' } },
  steps: 20,
  reference: { backend: 'serial', md5: '0'.repeat(32), mass_start: 4, mass_end: 4 },
  runs: {},
  series: { step: [0, 10, 20], mass: [4, 4, 4], flooded: [1, 2, 3], max_thickness: [4, 2, 2], active: [1, 2, 3] },
  // A 4 × 4 window from row −1: its top row lies beyond the grid, as does its right column.
  maps: [0, 10, 20].map((step, n) => ({
    step,
    row0: -1,
    col0: 0,
    size: 4,
    block: 1,
    values: [null, null, null, null, 4 - n, n > 0 ? 2 : null, 0.001, null, null, null, n > 1 ? 0.5 : null, null, null, null, null, null],
  })),
  hillshade: { row0: -1, col0: 0, size: 4, block: 1, azimuth: 315, altitude: 45, values: [null, null, null, null, 100, 100, 100, null, 255, null, 0, null, 180, 180, 180, null] },
  skipped: [],
})

describe('a thickness frame', () => {
  it('puts the scale\'s top at a round step at or above the deepest debris', () => {
    const maps = (max: number): ThicknessMap[] => [{ step: 0, row0: 0, col0: 0, size: 1, block: 1, values: [max] }]
    // Ticks near (k/5)² of the top, on 1, 2 or 5 × 10ⁿ: about evenly along a square-root bar.
    expect(thicknessScale(maps(8.7))).toEqual({ top: 10, ticks: [0, 0.5, 2, 5, 10] })
    expect(thicknessScale(maps(29.7))).toEqual({ top: 30, ticks: [0, 1, 5, 10, 20, 30] })
    expect(thicknessScale(maps(0.37))).toEqual({ top: 0.4, ticks: [0, 0.02, 0.05, 0.1, 0.2, 0.4] })
    expect(thicknessScale(maps(5))).toEqual({ top: 5, ticks: [0, 0.2, 1, 2, 5] })
    // 5 m would sit too near the top of 6 m.
    expect(thicknessScale(maps(5.6))).toEqual({ top: 6, ticks: [0, 0.2, 1, 2, 6] })
    expect(scalePosition({ top: 4, ticks: [] }, 1)).toBe(0.5)
    // No debris deeper than p_ε: a scale all the same.
    expect(thicknessScale(maps(0.001)).top).toBe(1)
    expect(thicknessColor(0)).toBe('#ffeda0')
    expect(thicknessColor(1)).toBe('#660026')
    expect(thicknessColor(2)).toBe('#660026')
    expect(reliefColor(0)).toBe('#282828')
    expect(reliefColor(255)).toBe('#e6e6e6')
  })

  it('colours debris deeper than p_ε, shows the relief under thinner debris, walls in their colour, nothing beyond the grid', () => {
    const r = result()
    const scale = thicknessScale(r.maps)
    expect(scale.top).toBe(4)
    const last = frameCellColors(r, r.maps[2], scale)
    expect(last.slice(0, 4)).toEqual([null, null, null, null])
    // Along the bar by the square root of h / top.
    expect(last[4]).toBe(thicknessColor(Math.SQRT1_2))
    expect(last[5]).toBe(thicknessColor(Math.SQRT1_2))
    // h = 0.001 m is not more than p_ε: clear, the relief shows.
    expect(last[6]).toBe(reliefColor(100))
    expect(last[7]).toBeNull()
    expect(last[8]).toBe(reliefColor(255))
    expect(last[9]).toBe(WALL_COLOR)
    expect(last[10]).toBe(thicknessColor(Math.sqrt(0.5 / 4)))
    expect(last[12]).toBe(reliefColor(180))
    const first = frameCellColors(r, r.maps[0], scale)
    expect(first[4]).toBe(thicknessColor(1))
    expect(first[5]).toBe(reliefColor(100))
    // A run recorded without relief still draws its debris, on a plain ground.
    const bare = frameCellColors({ ...r, hillshade: undefined }, r.maps[2], scale)
    expect(bare[4]).toBe(thicknessColor(Math.SQRT1_2))
    expect(bare[8]).toBe('#d0d7de')
    expect(bare[0]).toBeNull()
  })

  it('draws as a true SVG: cell rectangles, the title, the scale in metres and the legend as text', () => {
    const svg = frameSvg(result(), 2)
    const layout = frameLayout(4)
    expect(svg).toContain(`viewBox="0 0 ${layout.width} ${layout.height}"`)
    expect(svg).toContain('>Debris thickness after 20 steps (of 20)</text>')
    expect(svg).toContain('>h (m)</text>')
    for (const tick of ['0', '0.2', '0.5', '1', '2', '4']) expect(svg).toContain(`>${tick}</text>`)
    expect(svg).toContain('>NODATA</text>')
    expect(svg).toContain('>clear: h ≤ 0.001 m</text>')
    expect(svg).not.toContain('<image')
    // The wall cell and the debris cells as rectangles of their colours, a cell being `layout.cell` pixels.
    expect(svg).toContain(`width="${layout.cell}" height="${layout.cell}" fill="${WALL_COLOR}"`)
    expect(svg).toContain(`width="${2 * layout.cell}" height="${layout.cell}" fill="${thicknessColor(Math.SQRT1_2)}"`)
    expect(() => frameSvg(result(), 3)).toThrow('landslide frame 3: the run recorded 3 maps')
  })
})

describe('the GIF encoder', () => {
  const solid = (w: number, h: number, rgb: [number, number, number]) => {
    const data = new Uint8Array(w * h * 4)
    for (let k = 0; k < w * h; k++) data.set([...rgb, 255], k * 4)
    return { width: w, height: h, data }
  }

  it('writes every frame at its size, with its delay, looping, and pixels that read back', () => {
    const frames = [solid(7, 5, [255, 0, 0]), solid(7, 5, [0, 128, 255]), solid(7, 5, [20, 200, 30])]
    // A frame of two colours: left half, right half.
    for (let k = 0; k < 35; k++) if (k % 7 >= 4) frames[2].data.set([250, 250, 10, 255], k * 4)
    const gif = readGif(encodeGif(frames, { delayMs: 400, lastDelayMs: 2000 }))
    expect(gif).toMatchObject({ width: 7, height: 5, loops: 0 })
    expect(gif.frames.map((f) => [f.width, f.height, f.delay])).toEqual([
      [7, 5, 40],
      [7, 5, 40],
      [7, 5, 200],
    ])
    expect(Array.from(gif.frames[0].rgb.subarray(0, 3))).toEqual([255, 0, 0])
    expect(Array.from(gif.frames[1].rgb.subarray(33, 36))).toEqual([0, 128, 255])
    expect(Array.from(gif.frames[2].rgb.subarray(0, 3))).toEqual([20, 200, 30])
    expect(Array.from(gif.frames[2].rgb.subarray(4 * 3, 5 * 3))).toEqual([250, 250, 10])
    expect(readGif(encodeGif([frames[0]], { delayMs: 100, repeat: 2 })).loops).toBe(2)
  })

  it('refuses frames of different sizes, short pixel data and no frames, naming the frame', () => {
    expect(() => encodeGif([], { delayMs: 100 })).toThrow('an animated GIF needs at least one frame')
    expect(() => encodeGif([solid(4, 4, [0, 0, 0]), solid(4, 3, [0, 0, 0])], { delayMs: 100 })).toThrow('GIF frame 1 is 4 × 3, frame 0 4 × 4')
    expect(() => encodeGif([{ width: 2, height: 2, data: new Uint8Array(15) }], { delayMs: 100 })).toThrow('GIF frame 0: 15 bytes for 2 × 2 RGBA pixels (16)')
  })

  it('animates a run\'s maps as drawn on @napi-rs/canvas: one frame per map, frames that differ where the debris moved', async () => {
    const r = result()
    const gif = readGif(await thicknessGif(r, nodeRasterize))
    const layout = frameLayout(4)
    expect(gif).toMatchObject({ width: layout.width, height: layout.height })
    expect(gif.frames.map((f) => f.delay)).toEqual([FRAME_MS / 10, FRAME_MS / 10, LAST_FRAME_MS / 10])
    // Map cell (1, 0) holds 4 m of debris (the scale's top), then 3 m and 2 m; (1, 1) none at first.
    const at = (f: number, row: number, col: number) => {
      const x = layout.mapX + col * layout.cell + layout.cell / 2
      const y = layout.mapY + row * layout.cell + layout.cell / 2
      const k = (Math.floor(y) * layout.width + Math.floor(x)) * 3
      return Array.from(gif.frames[f].rgb.subarray(k, k + 3))
    }
    const near = (got: number[], hex: string) => {
      const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
      return got.every((v, i) => Math.abs(v - want[i]) <= 12)
    }
    expect(near(at(0, 1, 0), thicknessColor(1)), `${at(0, 1, 0)}`).toBe(true)
    expect(near(at(2, 1, 0), thicknessColor(Math.SQRT1_2)), `${at(2, 1, 0)}`).toBe(true)
    expect(near(at(0, 2, 1), WALL_COLOR), `${at(0, 2, 1)}`).toBe(true)
    expect(near(at(0, 1, 1), reliefColor(100))).toBe(true)
    expect(near(at(1, 1, 1), thicknessColor(Math.SQRT1_2))).toBe(true)
    expect(gif.frames[0].rgb).not.toEqual(gif.frames[1].rgb)
  })
})

describe('the job\'s relief and thickness files', () => {
  let dir: string
  let r: LandslideResult
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paralab-landslide-frames-'))
    const grids = landslideWorkload.example.files.map((f) => join(dir, f))
    await writeExample(dir, landslideWorkload.example.files)
    const params = validateParams('landslide', landslideWorkload.params, { grids, steps: 60, frames: 20, backends: ['active'] }) as LandslideParams
    r = (await runLandslideJob(params, jobContext())).results
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('sends the relief over the maps\' window, at their resolution', () => {
    const map = r.maps[0]
    expect(r.hillshade).toMatchObject({ row0: map.row0, col0: map.col0, size: map.size, block: map.block, azimuth: 315, altitude: 45 })
    const values = r.hillshade!.values
    expect(values).toHaveLength(map.size * map.size)
    const shades = values.filter((v): v is number => v !== null)
    for (const v of shades) expect(Number.isInteger(v) && v >= 0 && v <= 255).toBe(true)
    // A valley: lit and shadowed slopes both.
    expect(Math.max(...shades) - Math.min(...shades)).toBeGreaterThan(40)
    // The ground's elevation beside it, over the same cells: none where the relief has none (walls, beyond the grid).
    const elevation = r.hillshade!.elevation!
    expect(elevation).toHaveLength(map.size * map.size)
    expect(elevation.map((z) => z === null)).toEqual(values.map((v) => v === null))
  })

  it('writes the last frame as PNG and SVG and every map as a GIF frame', async () => {
    const files = await thicknessFiles(r)
    expect(files.map((f) => f.name)).toEqual(['thickness.png', 'thickness.svg', 'thickness.gif'])
    const png = files[0].data as Uint8Array
    expect(Array.from(png.subarray(1, 4))).toEqual([0x50, 0x4e, 0x47])
    const { loadImage } = await import('@napi-rs/canvas')
    const image = await loadImage(Buffer.from(await lastFramePng(r)))
    const layout = frameLayout(r.maps[0].size, 2)
    expect([image.width, image.height]).toEqual([layout.width, layout.height])
    expect(files[1].data).toContain('Debris thickness after 60 steps')
    const gif = readGif(files[2].data as Uint8Array)
    expect(gif.frames).toHaveLength(r.maps.length)
    expect(r.maps.map((m) => m.step)).toEqual([0, 20, 40, 60])
    expect(gif.frames[0].rgb).not.toEqual(gif.frames[3].rgb)
    expect(await thicknessFiles({ ...r, maps: [] })).toEqual([])
  })

  it('landslide simulate draws the final thickness as PNG and the frames every K steps as a GIF', async () => {
    const [dem, source] = landslideWorkload.example.files.map((f) => join(dir, f))
    const base = { dem, source, steps: 40, backend: 'active' as const, variant: 'fused' as const, ranks: 1, force: false }
    const png = join(dir, 'final.png')
    const gif = join(dir, 'flow.gif')
    const summary = await simulate({ ...base, png, frames: { every: 10, gif } })
    expect(summary.written).toEqual([png, gif])
    const frames = readGif(readFileSync(gif))
    // Steps 0, 10, 20, 30 and 40.
    expect(frames.frames).toHaveLength(5)
    expect(frames.frames[0].rgb).not.toEqual(frames.frames[4].rgb)
    const { loadImage } = await import('@napi-rs/canvas')
    const image = await loadImage(readFileSync(png))
    expect(image.width).toBe(2 * frames.width)
    // A PNG alone needs no frames; an existing target is refused before any work.
    const alone = join(dir, 'alone.png')
    expect((await simulate({ ...base, png: alone })).written).toEqual([alone])
    await expect(simulate({ ...base, png: alone })).rejects.toThrow(`${alone} exists (use --force to overwrite)`)
    await expect(simulateCommand.run({ dem, source, gif: join(dir, 'x.gif') }, [])).rejects.toThrow('--gif needs --frames K')
    await expect(simulateCommand.run({ dem, source, frames: '5' }, [])).rejects.toThrow('--frames needs --frames-dir, --gif or both')
    expect(existsSync(join(dir, 'x.gif'))).toBe(false)
  })
})
