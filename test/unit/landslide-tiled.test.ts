// bench landslide --tile: the grids repeated into one (values, walls, header), the f64 run of the
// tiled grid equal bit for bit to the original's run tiled while no debris nears the border, and the
// cases where the copies may touch recognised (source on the border, debris reaching it).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { initialState, ThreadSimulation } from '../../src/main/workloads/landslide/simulation'
import { parseTiling, tiledReference, tileInput } from '../../src/main/workloads/landslide/tiled-grid'
import { valley } from '../helpers/landslide-valley'

const DATA = join(__dirname, '../../../shared/data/landslide')

describe('tiled landslide grids', () => {
  it('parses RxC and refuses anything else', () => {
    expect(parseTiling('6x7')).toEqual({ rows: 6, cols: 7 })
    expect(parseTiling('2×3')).toEqual({ rows: 2, cols: 3 })
    for (const bad of ['0x3', '3', 'x3', '2x-1', '2x3x4', 'ax2']) expect(parseTiling(bad), bad).toBeUndefined()
  })

  it('repeats the DEM, the source and the walls; the header names the new size', () => {
    const input = valley(13, 11, 5)
    const t = tileInput(input, { rows: 2, cols: 3 })
    expect([t.rows, t.cols, t.header.nrows, t.header.ncols]).toEqual([26, 33, 26, 33])
    expect(t.header.entries.find(([k]) => /^nrows$/i.test(k))?.[1]).toBe('26')
    expect(t.wallCount).toBe(6 * input.wallCount)
    for (let i = 0; i < t.rows; i++)
      for (let j = 0; j < t.cols; j++) {
        const k = (i % 13) * 11 + (j % 11)
        const q = i * t.cols + j
        expect([t.z[q], t.h[q], t.walls![q]]).toEqual([input.z[k], input.h[k], input.walls![k]])
      }
    // The files stay as named, the tiling said beside them; the lower-left corner moves south by the rows added.
    expect([t.files.dem, t.tile]).toEqual([input.files.dem, { rows: 2, cols: 3 }])
    expect(t.header.yllcorner).toBe(input.header.yllcorner - 13 * input.header.cellsize)
  })

  it('gives the f64 grid of the tiled run, bit for bit, from the original run', async () => {
    // The debris nears the border at step 73.
    const input = valley(60, 30, 3)
    const tile = { rows: 2, cols: 3 }
    const steps = 70
    const ref = await tiledReference(input, tile, steps)
    if (!('grid' in ref)) throw new Error(ref.touching)
    for (const active of [false, true]) {
      const sim = new ThreadSimulation(initialState(tileInput(input, tile)), active)
      await sim.advance(steps)
      const h = await sim.thickness()
      expect(h.length).toBe(ref.grid.length)
      let differ = 0
      for (let k = 0; k < h.length; k++) if (h[k] !== ref.grid[k]) differ++
      expect(differ, active ? 'active' : 'serial').toBe(0)
    }
    // The debris did move, in every copy.
    const start = tileInput(input, tile).h
    let changed = 0
    for (let k = 0; k < start.length; k++) if (start[k] !== ref.grid[k]) changed++
    expect(changed).toBeGreaterThan(6 * 20)
  })

  it('says when the copies may touch: debris on the border, or reaching the cells beside it', async () => {
    const names = ['header', 'dem', 'source'].map((f) => join(DATA, `test_${f}.txt`))
    const onBorder = await readLandslideInput(names, names)
    expect(await tiledReference(onBorder, { rows: 2, cols: 2 }, 10)).toEqual({ touching: expect.stringContaining('border') })
    expect(await tiledReference(valley(24, 14, 3), { rows: 2, cols: 2 }, 10)).toEqual({ touching: expect.stringContaining('lies beside') })
    // A short valley: the debris runs down to its foot, and then the copies do interact.
    const short = valley(30, 14, 3)
    const tile = { rows: 2, cols: 1 }
    const r = await tiledReference(short, tile, 200)
    expect('touching' in r && r.touching).toMatch(/at step 28$/)
    const original = new ThreadSimulation(initialState(short), false)
    const tiled = new ThreadSimulation(initialState(tileInput(short, tile)), false)
    await original.advance(200)
    await tiled.advance(200)
    const a = await original.thickness()
    const b = await tiled.thickness()
    let differ = 0
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) differ++
    expect(differ).toBeGreaterThan(0)
  })
})
