// `paralab landslide --output/--asc/--tif`: the files are written from the final grid the job kept in
// this process, not from a second simulation (which had doubled the whole command's time), and are
// the bytes `landslide simulate` writes; a run whose grid is not held here is simulated once more.
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { landslideWorkload, type LandslideParams } from '../../src/shared/workloads/landslide'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { validateParams } from '../../src/shared/workloads/schema'
import { writeExample } from '../../src/main/workloads/landslide/example'
import { keepFinalGrid, keptFinalGrid } from '../../src/main/workloads/landslide/final-grid'
import { finalGridFlags } from '../../src/main/workloads/landslide/final-grid-files'
import { referenceMd5 } from '../../src/main/workloads/landslide/reference-format'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { simulate } from '../../src/main/workloads/landslide/simulate'
import { jobContext } from '../helpers/job-context'

const dir = mkdtempSync(join(tmpdir(), 'paralab-final-grid-files-'))
const grids = landslideWorkload.example.files.map((f) => join(dir, f))
const md5 = (path: string) => createHash('md5').update(readFileSync(path)).digest('hex')
const targets = (tag: string) => ({ output: join(dir, `${tag}.txt`), asc: join(dir, `${tag}.asc`), tif: join(dir, `${tag}.tif`) })

let run: LandslideResult
beforeAll(async () => {
  await writeExample(dir, landslideWorkload.example.files)
  const params = validateParams('landslide', landslideWorkload.params, { grids, steps: 120, backends: ['serial'] }) as LandslideParams
  run = (await runLandslideJob(params, jobContext())).results
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the landslide command\'s final grid files', () => {
  it('are the bytes `landslide simulate` writes for the same run, the reference text with the run\'s md5', async () => {
    expect(keptFinalGrid(run)).not.toBeNull()
    await finalGridFlags.write!(run, targets('kept'), false)
    const again = await simulate({ dem: grids[0], source: grids[1], steps: 120, backend: 'serial', variant: 'fused', ranks: 1, ...targets('simulated'), force: false })
    expect(md5(join(dir, 'kept.txt'))).toBe(run.reference.md5)
    expect(again.md5).toBe(run.reference.md5)
    for (const ext of ['txt', 'asc', 'tif']) expect(md5(join(dir, `kept.${ext}`)), ext).toBe(md5(join(dir, `simulated.${ext}`)))
  })

  it('come from the grid the job kept: a kept grid of other values is what is written', async () => {
    const held = keptFinalGrid(run)!
    const other = held.h.map((v, k) => (v > 0 ? v + (k % 7) : v))
    const otherMd5 = referenceMd5(other, held.input.rows, held.input.cols)
    keepFinalGrid(held.input, run.steps, otherMd5, other)
    try {
      const mine = { ...run, reference: { ...run.reference, md5: otherMd5 } }
      await finalGridFlags.write!(mine, { output: join(dir, 'other.txt') }, false)
      // A second simulation would have given the run's md5, and been refused as not the run's.
      expect(md5(join(dir, 'other.txt'))).toBe(otherMd5)
      expect(otherMd5).not.toBe(run.reference.md5)
    } finally {
      keepFinalGrid(held.input, run.steps, run.reference.md5, held.h)
    }
  })

  it('are simulated once more for a run whose grid this process does not hold, checked against its md5', async () => {
    const earlier = { ...run, steps: 60, reference: { ...run.reference, md5: 'not this grid' } }
    expect(keptFinalGrid(earlier)).toBeNull()
    await expect(finalGridFlags.write!(earlier, { output: join(dir, 'earlier.txt') }, false)).rejects.toThrow(/^the grid written has md5 [0-9a-f]{32}, the run's reference not this grid$/)
    const right = await simulate({ dem: grids[0], source: grids[1], steps: 60, backend: 'serial', variant: 'fused', ranks: 1, output: join(dir, 'sixty.txt'), force: false })
    const sixty = { ...run, steps: 60, reference: { ...run.reference, md5: right.md5 } }
    await finalGridFlags.write!(sixty, { output: join(dir, 'sixty-again.txt') }, false)
    expect(md5(join(dir, 'sixty-again.txt'))).toBe(right.md5)
  })
})
