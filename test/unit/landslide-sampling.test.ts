// The landslide's sampling: the animation has a frame for every sample the charts have, up to
// MAX_THICKNESS_MAPS; beyond, every k-th sample, and the run says so.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { landslideWorkload, type LandslideParams } from '../../src/shared/workloads/landslide'
import { framesNote } from '../../src/shared/workloads/landslide/sampling'
import { MAX_THICKNESS_MAPS } from '../../src/shared/workloads/landslide/types'
import { validateParams } from '../../src/shared/workloads/schema'
import { writeExample } from '../../src/main/workloads/landslide/example'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { describeLandslide } from '../../src/main/workloads/landslide/describe'
import { jobContext } from '../helpers/job-context'

let dir: string
let grids: string[]
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-landslide-sampling-'))
  grids = landslideWorkload.example.files.map((f) => join(dir, f))
  await writeExample(dir, landslideWorkload.example.files)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function run(steps: number, frames: number) {
  const params = validateParams('landslide', landslideWorkload.params, { grids, steps, frames, backends: ['active'] }) as LandslideParams
  return (await runLandslideJob(params, jobContext())).results
}

describe('frames', () => {
  it('honours "frames every N": as many animation frames as chart points', async () => {
    // As 4000 steps with frames every 100: 41 samples.
    const r = await run(400, 10)
    expect(r.series.step).toHaveLength(41)
    expect(r.maps.map((m) => m.step)).toEqual(r.series.step)
    expect(r.sampling).toEqual({ every: 10, maps_every: 10 })
    expect(framesNote(r)).toBeNull()
    expect(describeLandslide(r)).not.toContain('frames, one every')
  })

  it('keeps every k-th sample beyond the cap, the last included, and says so', async () => {
    // 401 samples: every other one is 201 frames, the first and the last included.
    const r = await run(2 * (MAX_THICKNESS_MAPS - 1), 1)
    expect(r.series.step).toHaveLength(2 * MAX_THICKNESS_MAPS - 1)
    expect(r.maps.map((m) => m.step)).toEqual(r.series.step.filter((s) => s % 2 === 0))
    expect(r.maps).toHaveLength(MAX_THICKNESS_MAPS)
    expect(r.sampling).toEqual({ every: 1, maps_every: 2 })
    expect(framesNote(r)).toBe(`${MAX_THICKNESS_MAPS} frames, one every 2 steps (and the last): the animation keeps at most ${MAX_THICKNESS_MAPS}; the charts have a point every 1 steps`)
    // The command line says so too.
    expect(describeLandslide(r)).toContain(framesNote(r)!)
  })
})
