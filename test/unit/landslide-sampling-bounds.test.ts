// A landslide run asked for a sample every step keeps its samples bounded (MAX_SAMPLES, said in
// `sampling`), lets the event loop answer others while it runs, and honours a cancel at once; its
// frames' snapshots are bounded in bytes as well as in count, thinned evenly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { landslideWorkload, type LandslideParams } from '../../src/shared/workloads/landslide'
import { framesNote } from '../../src/shared/workloads/landslide/sampling'
import { MAX_SAMPLES, MAX_THICKNESS_MAPS } from '../../src/shared/workloads/landslide/types'
import { validateParams } from '../../src/shared/workloads/schema'
import { FrameKeeper, MAX_FRAME_BYTES } from '../../src/main/workloads/landslide/frames'
import { runLandslideJob, sampleEvery } from '../../src/main/workloads/landslide/run-landslide'
import { jobContext } from '../helpers/job-context'

const dir = mkdtempSync(join(tmpdir(), 'paralab-landslide-bounds-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** An ESRI grid of n × n cells: a tilted plane as the DEM (z = 1000 − 0.5 i − 0.3 j), or debris 1 m deep everywhere. */
function grid(name: string, n: number, value: (i: number, j: number) => number): string {
  const rows = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => value(i, j)).join(' '))
  const path = join(dir, name)
  writeFileSync(path, [`ncols ${n}`, `nrows ${n}`, 'xllcorner 0', 'yllcorner 0', 'cellsize 10', 'NODATA_value -9999', ...rows].join('\n') + '\n')
  return path
}

describe('a sample every step', () => {
  it('raises the interval to keep at most MAX_SAMPLES samples, and says so', async () => {
    expect(sampleEvery(10_000, 1)).toBe(Math.ceil(10_000 / MAX_SAMPLES))
    expect(sampleEvery(1_000_000, 1)).toBe(250)
    expect(sampleEvery(4000, 100)).toBe(100)
    const grids = [grid('small-dem.asc', 30, (i, j) => 1000 - 0.5 * i - 0.3 * j), grid('small-source.asc', 30, (i, j) => (i < 5 && j < 5 ? 2 : 0))]
    const params = validateParams('landslide', landslideWorkload.params, { grids, steps: 10_000, frames: 1, backends: ['active'] }) as LandslideParams
    const { results } = await runLandslideJob(params, jobContext())
    expect(results.series.step.length).toBeLessThanOrEqual(MAX_SAMPLES + 1)
    expect(results.series.step.at(-1)).toBe(10_000)
    expect(results.sampling).toMatchObject({ every: 3, asked: 1 })
    expect(results.maps.length).toBeLessThanOrEqual(MAX_THICKNESS_MAPS)
    expect(results.maps.at(-1)!.step).toBe(10_000)
    expect(framesNote(results)).toContain(`samples every 3 steps instead of the 1 asked for: a run takes at most ${MAX_SAMPLES}`)
  }, 120_000)

  it('on a 400 × 400 grid over a million steps: the event loop keeps answering, and a cancel ends the run at once', async () => {
    const grids = [grid('dem.asc', 400, (i, j) => 1000 - 0.5 * i - 0.3 * j), grid('source.asc', 400, () => 1)]
    const params = validateParams('landslide', landslideWorkload.params, { grids, steps: 1_000_000, frames: 1, backends: ['active'] }) as LandslideParams
    const controller = new AbortController()
    // The longest the event loop went without running a 10 ms timer.
    let last = performance.now()
    let worst = 0
    const ticks = setInterval(() => {
      const now = performance.now()
      worst = Math.max(worst, now - last)
      last = now
    }, 10)
    const running = runLandslideJob(params, jobContext({ signal: controller.signal })).then(
      (outcome) => ({ partial: outcome.partial, error: undefined }),
      (e: unknown) => ({ partial: undefined, error: ApiError.from(e) }),
    )
    await new Promise((r) => setTimeout(r, 3000))
    const cancelledAt = performance.now()
    controller.abort()
    const outcome = await running
    const ended = performance.now() - cancelledAt
    clearInterval(ticks)
    // A cancel within the run keeps what had been sampled (partial) or, before any sample, fails as cancelled.
    if (outcome.error) expect(outcome.error.code).toBe('cancelled')
    else expect(outcome.partial).toBe(true)
    expect(ended).toBeLessThan(2000)
    expect(worst).toBeLessThan(1000)
  }, 120_000)
})

describe('the frames\' snapshots', () => {
  /** A 10 × 10 grid whose debris covers `cells` cells of its first rows. */
  const grid = (cells: number) => Float64Array.from({ length: 100 }, (_, k) => (k < cells ? 1 : 0))

  it('are thinned evenly, every other one at a time, once their bytes pass the budget; the first and the final state stay', () => {
    // 400 bytes a snapshot (100 cells as f32), 2000 bytes allowed: 5 snapshots.
    const keeper = new FrameKeeper(10, 10, 1, 2000, 201)
    for (let step = 0; step <= 20; step++) keeper.offer(step, grid(100))
    expect(keeper.stride).toBe(8)
    expect(keeper.thinnedByBytes).toBe(true)
    expect(keeper.finish(20, grid(100)).map((s) => s.step)).toEqual([0, 8, 16, 20])
  })

  it('hold only the debris\' box: small slides keep every sample, up to the count', () => {
    const keeper = new FrameKeeper(10, 10, 1, 2000, 201)
    for (let step = 0; step <= 20; step++) keeper.offer(step, grid(10))
    expect(keeper.stride).toBe(1)
    expect(keeper.thinnedByBytes).toBe(false)
    expect(keeper.finish(20, grid(10))).toHaveLength(21)
    const counted = new FrameKeeper(10, 10, 1, MAX_FRAME_BYTES, 5)
    for (let step = 0; step <= 20; step++) counted.offer(step, grid(10))
    expect(counted.finish(20, grid(10)).map((s) => s.step)).toEqual([0, 8, 16, 20])
    expect(counted.thinnedByBytes).toBe(false)
  })

  it('are said in the frames\' note when the budget thinned them', () => {
    const note = framesNote({ sampling: { every: 1, maps_every: 2, frame_bytes: MAX_FRAME_BYTES }, maps: new Array(101) })
    expect(note).toBe(`101 frames, one every 2 steps (and the last): the animation keeps at most 64 MiB of the debris' snapshots (and at most ${MAX_THICKNESS_MAPS} frames); the charts have a point every 1 steps`)
  })
})
