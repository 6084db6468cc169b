// The landslide's GPU kernels on the software adapter against the f64 CPU run after the same steps:
// every variant on grids that are not multiples of the 16 × 16 tiles (and span several tiles and
// the grid-stride loop), with walls and with debris reaching a wall, within stated f32 bounds, the
// mass kept; steps split over submits in any way give the same grid; a grid without interior.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GPU_VARIANTS } from '../../src/shared/workloads/landslide/types'
import { type Gpu, getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { splitLines } from '../../src/main/workloads/landslide/esri-grid'
import { parseLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { gridDeviation } from '../../src/main/workloads/landslide/grid-stats'
import { GpuSimulation } from '../../src/main/workloads/landslide/gpu/gpu-simulation'
import { initialState, ThreadSimulation } from '../../src/main/workloads/landslide/simulation'
import { valley } from '../helpers/landslide-valley'

let gpu: Gpu
beforeAll(async () => {
  gpu = await getGpu()
})
afterAll(() => resetGpu())

const STEPS = 60

describe('landslide GPU kernels (f32) against the f64 CPU run', () => {
  // 45 × 37: three by three tiles, the last ones partial; the blob flows down to the walled block.
  const input = valley(45, 37, 7)
  let reference: Float64Array
  let mass: number

  beforeAll(async () => {
    const cpu = new ThreadSimulation(initialState(input), false)
    await cpu.advance(STEPS)
    reference = (await cpu.thickness()).slice()
    mass = reference.reduce((a, b) => a + b, 0)
  })

  it.each(GPU_VARIANTS.map((v) => [v]))('%s stays within 1 mm of every cell and keeps the mass', async (variant) => {
    const sim = await GpuSimulation.create(gpu, initialState(input), variant, 25)
    try {
      expect(sim.passesPerStep).toBe(variant === 'fused' ? 1 : variant === 'fused2' ? 0.5 : 3)
      await sim.advance(STEPS)
      const h = await sim.thickness()
      const d = gridDeviation(h, reference)
      // f32 keeps ~7 digits of the relative altitudes (≲ 70 m here): ~5e-6 m after 60 steps on SwiftShader.
      expect(d.max_abs, variant).toBeLessThan(1e-4)
      expect(d.cells_over_1mm).toBe(0)
      expect(Math.abs(d.mass_error) / mass, variant).toBeLessThan(1e-6)
      // The debris did move: the GPU grid is not the start.
      let moved = 0
      for (let k = 0; k < h.length; k++) moved += Math.abs(h[k] - input.h[k])
      expect(moved).toBeGreaterThan(1)
      // Walls never receive debris.
      for (let k = 0; k < h.length; k++) if (input.walls![k]) expect(h[k]).toBe(0)
    } finally {
      await sim.dispose()
    }
  })

  it('gives the same grid whatever the steps per submit (fused, active)', async () => {
    for (const variant of ['fused', 'active'] as const) {
      const grids: Float64Array[] = []
      for (const perSubmit of [STEPS, 7]) {
        const sim = await GpuSimulation.create(gpu, initialState(input), variant, perSubmit)
        try {
          await sim.advance(11)
          await sim.advance(STEPS - 11)
          expect(sim.done).toBe(STEPS)
          grids.push(await sim.thickness())
        } finally {
          await sim.dispose()
        }
      }
      expect(Array.from(grids[1]), variant).toEqual(Array.from(grids[0]))
    }
  })

  it('active, over the debris\' box only, matches the monolithic kernels over the whole grid', async () => {
    const results: Float64Array[] = []
    for (const variant of ['monolithic', 'active'] as const) {
      const sim = await GpuSimulation.create(gpu, initialState(input), variant, 30)
      await sim.advance(STEPS)
      results.push(await sim.thickness())
      await sim.dispose()
    }
    expect(gridDeviation(results[1], results[0]).max_abs).toBeLessThan(1e-6)
  })
})

describe('landslide GPU edge cases', () => {
  it('a grid without interior cells stays as it was', async () => {
    const header = 'ncols 4\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n'
    const file = (t: string) => ({ shown: 'g.asc', lines: splitLines(header + t) })
    const input = parseLandslideInput([file('1 2 3 4\n5 6 7 8\n'), file('0 1 0 0\n0 0 2 0\n')])
    const sim = await GpuSimulation.create(gpu, initialState(input), 'monolithic', 5)
    await sim.advance(10)
    expect(Array.from(await sim.thickness())).toEqual([0, 1, 0, 0, 0, 0, 2, 0])
    await sim.dispose()
  })

  it('grid-stride threads that loop over several cells, and the tiled kernels, match the monolithic ones', async () => {
    // 31 × 69 interior cells over 2 workgroups of 256 threads: each thread walks 4 or 5 cells.
    const input = valley(33, 71, 3)
    const results: Float64Array[] = []
    for (const variant of ['monolithic', 'grid-stride', 'tiled', 'tiled-halo'] as const) {
      const sim = await GpuSimulation.create(gpu, initialState(input), variant, 20, { strideGroups: 2 })
      await sim.advance(40)
      results.push(await sim.thickness())
      await sim.dispose()
    }
    for (const r of results.slice(1)) expect(gridDeviation(r, results[0]).max_abs).toBeLessThan(1e-6)
  })
})
