// The fused2 kernel (two steps a dispatch, temporal blocking in workgroup memory) against fused on
// the software adapter: the same grid bit for bit after odd and even step counts and any split
// over submits, on grids whose tiles end mid-grid, with walls across tile edges and debris flowing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { type Gpu, getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { GpuSimulation } from '../../src/main/workloads/landslide/gpu/gpu-simulation'
import { fused2Workgroup } from '../../src/main/workloads/landslide/gpu/kernels'
import { initialState } from '../../src/main/workloads/landslide/simulation'
import { valley } from '../helpers/landslide-valley'

let gpu: Gpu
beforeAll(async () => {
  gpu = await getGpu()
})
afterAll(() => resetGpu())

async function run(variant: 'fused' | 'fused2', rows: number, cols: number, steps: number[], perSubmit: number, fused2Workgroup?: { WG_X: number; WG_Y: number }): Promise<Float64Array> {
  const sim = await GpuSimulation.create(gpu, initialState(valley(rows, cols, 11)), variant, perSubmit, { fused2Workgroup })
  try {
    for (const s of steps) await sim.advance(s)
    return (await sim.thickness()).slice()
  } finally {
    await sim.dispose()
  }
}

describe('landslide fused2 (two steps a dispatch)', () => {
  it.each([
    [45, 37, 40],
    [45, 37, 41],
    [70, 34, 57],
  ])('matches fused bit for bit on %i × %i after %i steps', async (rows, cols, steps) => {
    const fused = await run('fused', rows, cols, [steps], 500)
    const two = await run('fused2', rows, cols, [steps], 500)
    const start = valley(rows, cols, 11).h
    let moved = 0
    for (let k = 0; k < start.length; k++) if (start[k] !== fused[k]) moved++
    expect(moved).toBeGreaterThan(20)
    let differ = 0
    for (let k = 0; k < fused.length; k++) if (!Object.is(fused[k], two[k])) differ++
    expect(differ).toBe(0)
  })

  it('gives the same grid whatever the split into advances and submits (odd ones included)', async () => {
    const whole = await run('fused2', 45, 37, [40], 500)
    const split = await run('fused2', 45, 37, [3, 10, 1, 26], 7)
    expect(Array.from(split)).toEqual(Array.from(whole))
  })

  it.each([
    [8, 8],
    [16, 4],
  ])('gives the same grid with %i × %i invocations a tile (each phase in more rounds), as the 24 × 24 of larger devices would in fewer', async (x, y) => {
    const fused = await run('fused', 70, 34, [57], 500)
    const shaped = await run('fused2', 70, 34, [57], 500, { WG_X: x, WG_Y: y })
    expect(Array.from(shaped)).toEqual(Array.from(fused))
  })

  it('takes 24 × 24 invocations where the device allows 576, else 16 × 16', () => {
    expect(fused2Workgroup({ maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024 })).toEqual({ WG_X: 24, WG_Y: 24 })
    expect(fused2Workgroup(gpu.limits)).toEqual(gpu.limits.maxComputeInvocationsPerWorkgroup >= 576 ? { WG_X: 24, WG_Y: 24 } : { WG_X: 16, WG_Y: 16 })
    expect(fused2Workgroup({ maxComputeInvocationsPerWorkgroup: 256, maxComputeWorkgroupSizeX: 256, maxComputeWorkgroupSizeY: 256 })).toEqual({ WG_X: 16, WG_Y: 16 })
  })

  it('dispatches once per two steps', async () => {
    const sim = await GpuSimulation.create(gpu, initialState(valley(20, 20, 1)), 'fused2', 10)
    expect(sim.passesPerStep).toBe(0.5)
    await sim.dispose()
  })

  /** `gpu.run` watched while `fn` runs: the most submits in flight at once, and those in flight when `fn` settled. */
  async function watchRuns(fn: () => Promise<void>): Promise<{ most: number; left: number; error?: unknown }> {
    const real = gpu.run.bind(gpu)
    let inFlight = 0
    let most = 0
    gpu.run = (...args: Parameters<Gpu['run']>) => {
      inFlight++
      most = Math.max(most, inFlight)
      const p = real(...args)
      p.then(
        () => inFlight--,
        () => inFlight--,
      )
      return p
    }
    try {
      await fn()
      return { most, left: inFlight }
    } catch (error) {
      return { most, left: inFlight, error }
    } finally {
      gpu.run = real
    }
  }

  it('queues the next submit while one runs, with the same grid as one submit at a time', async () => {
    const whole = await run('fused2', 45, 37, [41], 500)
    const sim = await GpuSimulation.create(gpu, initialState(valley(45, 37, 11)), 'fused2', 4)
    try {
      const seen = await watchRuns(() => sim.advance(41))
      expect(seen.most).toBe(2)
      expect(seen.left).toBe(0)
      expect(sim.done).toBe(41)
      expect(Array.from((await sim.thickness()).slice())).toEqual(Array.from(whole))
    } finally {
      await sim.dispose()
    }
  })

  it('sees a cancel between submits and leaves none in flight', async () => {
    const sim = await GpuSimulation.create(gpu, initialState(valley(45, 37, 11)), 'fused2', 2)
    const stop = new AbortController()
    try {
      const real = gpu.run.bind(gpu)
      let submits = 0
      const seen = await watchRuns(() => {
        const watched = gpu.run
        gpu.run = (...args: Parameters<Gpu['run']>) => {
          if (++submits === 3) stop.abort()
          return watched(...args)
        }
        return sim.advance(1000, stop.signal).finally(() => (gpu.run = real))
      })
      expect(seen.error).toBeInstanceOf(ApiError)
      expect((seen.error as ApiError).code).toBe('cancelled')
      expect(submits).toBeLessThanOrEqual(4)
      expect(seen.left).toBe(0)
    } finally {
      await sim.dispose()
    }
  })
})
