// The gpu backend in row bands (one device per band where there are several GPUs; here, on the
// software adapter, every band on the one device): halo rows refreshed every S steps must give the
// same grid, bit for bit, as one band, for every kernel and both arithmetics, whatever the split
// into advances; and the placement is reported: asked for ('shared': one process opens one GPU)
// apart from observed (here 'not observed': a software adapter is no GPU). Where bands really land on
// several GPUs is checked on a machine of several by scripts/gpu-placement-check.sh.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type Gpu, getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { deviceSelectLayer, gpusFor } from '../../src/main/gpu/device-select'
import { gpuBusTags } from '../../src/main/gpu/pci'
import { GpuBandsSimulation } from '../../src/main/workloads/landslide/gpu/gpu-bands'
import { type GpuArithmetic, GpuSimulation } from '../../src/main/workloads/landslide/gpu/gpu-simulation'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { initialState, type Simulation } from '../../src/main/workloads/landslide/simulation'
import type { GpuVariant } from '../../src/shared/workloads/landslide/types'
import { valley } from '../helpers/landslide-valley'
import { jsonOf, paralab } from '../e2e/paralab'

let gpu: Gpu
beforeAll(async () => {
  gpu = await getGpu()
})
afterAll(() => resetGpu())

const ROWS = 46
const COLS = 31

async function finish(sim: Simulation, advances: number[]): Promise<Float64Array> {
  try {
    for (const s of advances) await sim.advance(s)
    return (await sim.thickness()).slice()
  } finally {
    await sim.dispose()
  }
}

const oneBand = async (variant: GpuVariant, arithmetic: GpuArithmetic, steps: number) =>
  finish(await GpuSimulation.create(gpu, initialState(valley(ROWS, COLS, 5)), variant, 500, { arithmetic }), [steps])

async function inBands(variant: GpuVariant, arithmetic: GpuArithmetic, bands: number, exchangeEvery: number, advances: number[]) {
  const set = await gpusFor(bands, gpu)
  const sim = await GpuBandsSimulation.create(set, initialState(valley(ROWS, COLS, 5)), variant, 7, { arithmetic, exchangeEvery })
  return { sim, grid: await finish(sim, advances) }
}

describe('landslide gpu in row bands with halo exchange', () => {
  it.each([
    ['fused', 'f32', 2, 3],
    ['fused2', 'f32', 3, 3],
    ['monolithic', 'f32', 2, 4],
    ['grid-stride', 'f32', 3, 2],
    ['tiled-halo', 'f32', 2, 5],
    ['tiled', 'f32', 2, 1],
    ['fused', 'double-float', 3, 3],
  ] as [GpuVariant, GpuArithmetic, number, number][])('%s in %s: %i bands exchanging every %i steps give the one-band grid bit for bit', async (variant, arithmetic, bands, every) => {
    const steps = 60
    const whole = await oneBand(variant, arithmetic, steps)
    const { sim, grid } = await inBands(variant, arithmetic, bands, every, [13, 1, 46])
    expect(sim.ranks).toBe(bands)
    expect(sim.exchangeEvery).toBe(every)
    // The debris must have crossed the cuts between bands, or the exchange was never put to the test.
    const start = valley(ROWS, COLS, 5).h
    const changedRows = new Set<number>()
    for (let k = 0; k < start.length; k++) if (start[k] !== whole[k]) changedRows.add(Math.floor(k / COLS))
    const cut = Math.round(ROWS / bands)
    expect([cut - 1, cut, cut + 1].some((r) => changedRows.has(r))).toBe(true)
    let differ = 0
    for (let k = 0; k < whole.length; k++) if (!Object.is(whole[k], grid[k])) differ++
    expect(differ).toBe(0)
  })

  it('refuses halos larger than a band, and the active kernel, naming the reason', async () => {
    const state = initialState(valley(ROWS, COLS, 5))
    await expect(GpuBandsSimulation.create(await gpusFor(3, gpu), state, 'fused', 500, { exchangeEvery: 10 })).rejects.toThrow(/at least 20 rows; the thinnest of 3 bands .* has 1[45]/)
    await expect(GpuBandsSimulation.create(await gpusFor(2, gpu), state, 'active', 500)).rejects.toThrow(/active kernel .*--gpu-bands 1/)
  })

  it('places every band on the software adapter, saying why', async () => {
    const set = await gpusFor(3, gpu)
    expect(set.gpus).toEqual([gpu, gpu, gpu])
    expect(set.placement).toEqual(['shared', 'shared', 'shared'])
    expect(set.note).toMatch(/software one .*: all 3 bands on it/)
    expect((await gpusFor(1, gpu)).note).toBeUndefined()
  })

  it('reports the bands of a job: ranks, each band\'s GPU, the exchange interval, the same deviation as one band', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralab-bands-'))
    try {
      const input = valley(ROWS, COLS, 5)
      const job = (gpuBands: number) =>
        runLandslideJob(
          { grids: [], steps: 30, backends: ['active', 'gpu'], variants: ['fused'], precision: 'f32', gpuBands, exchangeEvery: 2, frames: 0, repeat: 1 },
          { signal: new AbortController().signal, progress: () => {}, input: async (p) => p, gpu: getGpu },
          { input },
        )
      const one = (await job(1)).results.runs['gpu/fused']
      const two = (await job(2)).results.runs['gpu/fused']
      expect(one.gpus_requested).toBeUndefined()
      expect(two).toMatchObject({ ranks: 2, gpus_requested: ['shared', 'shared'], gpus_observed: ['not observed', 'not observed'], exchange_every: 2 })
      expect(two.gpus_observed_by).toMatch(/software adapter/)
      expect(two.gpus_shared).toBeUndefined()
      expect(two.gpus_note).toMatch(/software/)
      expect(two.deviation).toEqual(one.deviation)
      // One band's kernel has its roofline point; bands, whose rate is not one kernel's on one device, none.
      expect(one.roofline).toBeDefined()
      expect(two.roofline).toBeUndefined()
      expect(two.mass_end).toBe(one.mass_end)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('leaves the active kernel out of a job in bands, naming why, and refuses a job of it alone', async () => {
    const job = (variants: GpuVariant[]) =>
      runLandslideJob(
        { grids: [], steps: 4, backends: ['active', 'gpu'], variants, precision: 'f32', gpuBands: 2, frames: 0, repeat: 1 },
        { signal: new AbortController().signal, progress: () => {}, input: async (p) => p, gpu: getGpu },
        { input: valley(ROWS, COLS, 5) },
      )
    const { results } = await job(['fused', 'active'])
    expect(Object.keys(results.runs).sort()).toEqual(['active', 'gpu/fused'])
    expect(results.skipped).toEqual([{ backend: 'gpu/active', reason: expect.stringMatching(/halo exchanges would invalidate/) }])
    await expect(job(['active'])).rejects.toThrow(/--gpu-bands 1/)
  })

  it('paralab landslide --gpu-bands says where the bands ran, on the terminal and in --json', () => {
    const args = ['landslide', '--example', '--backend', 'gpu', '--gpu-bands', '2', '--exchange-every', '3', '--steps', '12']
    const text = paralab(args)
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/gpu\/fused: 2 bands, halos exchanged every 3 steps; the adapter is a software one .*: all 2 bands on it\n2 bands: requested shared, shared; GPUs not observed \(a software adapter/)
    const run = jsonOf(paralab([...args, '--json'])).results.runs['gpu/fused']
    expect(run).toMatchObject({ ranks: 2, gpus_requested: ['shared', 'shared'], gpus_observed: ['not observed', 'not observed'], exchange_every: 3 })
    expect(JSON.stringify(run)).not.toMatch(/pci-/)
  })
})

describe('finding GPUs and the device-select layer', () => {
  const saved = { path: process.env.VK_LAYER_PATH, off: process.env.NODEVICE_SELECT }
  afterEach(() => {
    for (const [k, v] of [['VK_LAYER_PATH', saved.path], ['NODEVICE_SELECT', saved.off]] as const)
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  })

  it('lists PCI display controllers (VGA and 3D) as DRI_PRIME tags in bus order', () => {
    const root = mkdtempSync(join(tmpdir(), 'paralab-pci-'))
    try {
      const device = (address: string, cls: string) => {
        mkdirSync(join(root, address))
        writeFileSync(join(root, address, 'class'), `${cls}\n`)
      }
      device('0000:00:07.0', '0x030200')
      device('0000:00:06.0', '0x030200')
      device('0000:00:01.0', '0x060100')
      device('0000:c1:00.0', '0x030000')
      mkdirSync(join(root, 'not-a-device'))
      expect(gpuBusTags(root)).toEqual(['pci-0000_00_06_0', 'pci-0000_00_07_0', 'pci-0000_c1_00_0'])
      // A bus that cannot be listed says nothing about GPUs (null), unlike one listing none of them.
      expect(gpuBusTags(join(root, 'missing'))).toBeNull()
      mkdirSync(join(root, 'empty'))
      expect(gpuBusTags(join(root, 'empty'))).toBeNull()
      rmSync(join(root, '0000:00:06.0'), { recursive: true })
      rmSync(join(root, '0000:00:07.0'), { recursive: true })
      rmSync(join(root, '0000:c1:00.0'), { recursive: true })
      expect(gpuBusTags(root)).toEqual([])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('finds the layer\'s manifest on VK_LAYER_PATH, and none when NODEVICE_SELECT=1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralab-layer-'))
    try {
      writeFileSync(join(dir, 'other.json'), '{"layer": {"name": "VK_LAYER_KHRONOS_validation"}}')
      writeFileSync(join(dir, 'select.json'), '{"layer": {"name": "VK_LAYER_MESA_device_select"}}')
      process.env.VK_LAYER_PATH = dir
      expect(deviceSelectLayer()).toBe(join(dir, 'select.json'))
      process.env.NODEVICE_SELECT = '1'
      expect(deviceSelectLayer()).toBeNull()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
