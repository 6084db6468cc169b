// The landslide's gpu backend in ranks: two ranks (here in one process, meeting over loopback TCP as
// separate processes would, both on the software adapter) each run their band on the GPU with 2·S
// halo rows exchanged as the GPU holds them. Double-float gives the f64 reference's md5 whatever S;
// f32 gives the one-device grid bit for bit and lies within the GPU's deviation of the reference;
// checkpoints with gpu ranks are refused, saying why; rank 0's progress goes on through its reference.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type Gpu, getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { writeRanksKey } from '../../src/main/ranks/job-key'
import { GpuSimulation } from '../../src/main/workloads/landslide/gpu/gpu-simulation'
import { GpuHaloBand } from '../../src/main/workloads/landslide/gpu/gpu-halo-band'
import { referenceMd5 } from '../../src/main/workloads/landslide/reference-format'
import { defaultExchangeEvery, GPU_CHECKPOINTS_REFUSED, GPU_EXCHANGE_EVERY_MOST } from '../../src/main/workloads/landslide/rank-plan'
import { runLandslideRanks } from '../../src/main/workloads/landslide/run-ranks'
import { initialState } from '../../src/main/workloads/landslide/simulation'
import { landslideWorkload, type LandslideParams } from '../../src/shared/workloads/landslide'
import { validateParams } from '../../src/shared/workloads/schema'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import type { JobProgress } from '../../src/shared/jobs'
import { valley } from '../helpers/landslide-valley'

const ROWS = 46
const COLS = 31
const STEPS = 60
const input = valley(ROWS, COLS, 5)

let gpu: Gpu
const folders: string[] = []
beforeAll(async () => {
  gpu = await getGpu()
})
afterAll(async () => {
  await resetGpu()
  folders.forEach((d) => rmSync(d, { recursive: true, force: true }))
})

const paramsOf = (extra: Record<string, unknown>) =>
  validateParams('landslide', landslideWorkload.params, { grids: ['valley-dem.asc', 'valley-source.asc'], steps: STEPS, backends: ['gpu'], variants: ['fused'], stepsPerSubmit: 7, ...extra }) as LandslideParams

/** Every rank's results from `size` ranks run side by side in this process; `events` gets rank 0's progress. */
async function inRanks(size: number, extra: Record<string, unknown>, events: JobProgress[] = []): Promise<LandslideResult[]> {
  const folder = mkdtempSync(join(tmpdir(), 'paralab-gpu-ranks-'))
  folders.push(folder)
  const job = `gpu-ranks-${folders.length}`
  // The job's key, as the command that plans a cluster job writes it.
  await writeRanksKey(folder)
  const runs = Array.from({ length: size }, (_, rank) =>
    runLandslideRanks(paramsOf(extra), {
      signal: new AbortController().signal,
      progress: (p) => void (rank === 0 && events.push(p)),
      input: async (p) => p,
      gpu: getGpu,
      ranks: { rank, size, job, folder },
    }, { input }),
  )
  return (await Promise.all(runs)).map((o) => o.results)
}

describe('landslide gpu ranks', () => {
  afterEach(() => {
    delete process.env.PARALAB_RANKS_OVERLAP
    delete process.env.PARALAB_RANKS_PIPELINE
  })

  it.each([
    [2, 'on', 'on'],
    [5, 'on', 'on'],
    [5, 'on', 'off'],
    [5, 'off', 'on'],
  ])('double-float on 2 ranks exchanging every %i steps (overlap %s, blocks pipelined %s) gives the f64 reference md5 on every rank', async (every, overlap, pipeline) => {
    process.env.PARALAB_RANKS_OVERLAP = overlap
    process.env.PARALAB_RANKS_PIPELINE = pipeline
    const all = await inRanks(2, { precision: 'accurate', exchangeEvery: every })
    // Where each rank's time went: a block per exchange interval when overlapping.
    for (const b of all[0].ranks!.bands) expect(b.phases!.blocks).toBe(overlap === 'on' ? Math.ceil(STEPS / every) - 1 : 0)
    for (const r of all) {
      const run = r.runs['gpu/fused']
      expect(run).toMatchObject({ backend: 'gpu', variant: 'fused', precision: 'double-float', ranks: 2, exchange_every: every, gpus_requested: ['shared', 'shared'], gpus_observed: ['not observed', 'not observed'] })
      expect(r.reference.backend).toBe('active')
      expect(run.md5).toBe(r.reference.md5)
      expect(r.ranks!.bands.map((b) => [b.r0, b.r1])).toEqual([
        [1, r.ranks!.bands[0].r1],
        [r.ranks!.bands[0].r1, ROWS - 1],
      ])
      // The series and maps are the f64 reference's, sampled as a job on one machine samples them.
      expect(r.series.step).toEqual(Array.from({ length: 21 }, (_, i) => i * 3))
    }
    expect(all[0].runs['gpu/fused'].mass_end).not.toBe(all[0].reference.mass_start)
  })

  it.each([
    ['fused', 2, 4],
    ['fused2', 3, 3],
  ] as const)('f32 %s on %i ranks is the one-device grid bit for bit, within the GPU\'s deviation of the f64 reference', async (variant, size, every) => {
    const events: JobProgress[] = []
    const all = await inRanks(size, { precision: 'f32', exchangeEvery: every, variants: [variant] }, events)
    const r = all[0]
    // Rank 0's bar: its band's steps, then the f64 reference over the whole grid, never back and never at 100 % before the end.
    const fractions = events.map((e) => e.fraction)
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
    const reference = events.filter((e) => e.phase === 'reference: active (f64) on rank 0')
    expect(reference.length).toBeGreaterThan(1)
    expect(reference.at(-1)!.fraction).toBeLessThan(1)
    expect(events.at(-1)).toMatchObject({ phase: 'done', fraction: 1 })
    const one = await GpuSimulation.create(gpu, initialState(input), variant, 7)
    await one.advance(STEPS)
    const grid = (await one.thickness()).slice()
    await one.dispose()
    const run = r.runs[`gpu/${variant}`]
    expect(run.precision).toBe('f32')
    expect(run.md5).toBe(referenceMd5(grid, ROWS, COLS))
    expect(run.deviation!.max_abs).toBeGreaterThan(0)
    expect(run.deviation!.max_abs).toBeLessThan(5e-6)
    expect(run.deviation!.cells_over_1mm).toBe(0)
  })

  it('queues a block in two submits: strips, copies and edge readback in one, the band\'s steps in the next; the edges are the band\'s rows after those steps', async () => {
    const state = initialState(input)
    const band = await GpuHaloBand.create(gpu, state, 'fused2', 7, { arithmetic: 'f32', altitudeBase: 0 })
    const check = await GpuHaloBand.create(gpu, state, 'fused2', 7, { arithmetic: 'f32', altitudeBase: 0 })
    try {
      await band.advance(10)
      await check.advance(10)
      const want: [number, number][] = [[1, 6], [ROWS - 7, 6]]
      await band.prepare(3, want)
      const queue = gpu.device.queue
      const submit = queue.submit.bind(queue)
      let submits = 0
      queue.submit = (buffers) => {
        submits++
        submit(buffers)
      }
      let block: Awaited<ReturnType<GpuHaloBand['block']>>
      try {
        block = await band.block(3, 3, want)
      } finally {
        queue.submit = submit
      }
      expect(submits).toBe(2)
      const edges = await block.edges
      await block.done
      await check.advance(3)
      expect(edges.map((e) => Buffer.from(e!))).toEqual(await Promise.all(want.map(async ([f, c]) => Buffer.from(await check.readRaw(f, c)))))
      expect(band.done).toBe(13)
      // The readback buffer is used again by the next block.
      const next = await band.block(3, 3, want)
      await Promise.all([next.edges, next.done])
      await check.advance(3)
      expect(Buffer.from((await next.edges)[1]!)).toEqual(Buffer.from(await check.readRaw(ROWS - 7, 6)))
    } finally {
      await band.dispose()
      await check.dispose()
    }
  })

  it('exchanges every eighth of the thinnest band by default, gpu ranks at most every GPU_EXCHANGE_EVERY_MOST steps', () => {
    // Tessina tiled 12 × 14 on 4 ranks: bands of 1 830 rows.
    expect(defaultExchangeEvery(1830, 'active')).toBe(114)
    expect(defaultExchangeEvery(1830, 'gpu')).toBe(GPU_EXCHANGE_EVERY_MOST)
    expect(defaultExchangeEvery(160, 'gpu')).toBe(10)
    expect(defaultExchangeEvery(3, 'gpu')).toBe(1)
  })

  it('refuses checkpoints, the active kernel and several kernels, before any rank connects', async () => {
    await expect(inRanks(1, { checkpointEvery: 10, checkpointDir: join(tmpdir(), 'unused') })).rejects.toThrow(GPU_CHECKPOINTS_REFUSED)
    await expect(inRanks(1, { variants: ['active'] })).rejects.toThrow(/debris box/)
    await expect(inRanks(1, { variants: ['fused', 'fused2'] })).rejects.toThrow('gpu ranks run one kernel; got --variant fused,fused2')
  })
})
