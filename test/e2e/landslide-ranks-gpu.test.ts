// `paralab landslide --backend gpu` as 2 ranks started by the local launcher (as srun would), on the
// software adapter: each rank's band on the GPU, halos in the GPU's format, overlapped with the
// steps; double-float ends with the f64 reference's md5, reported with each rank's GPU and exchange
// time; a checkpointing gpu run is refused with the reason. Runs the built CLI (npm run build).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { launchRanks } from '../../src/main/ranks/launch'
import { writeExample } from '../../src/main/workloads/landslide/example'
import { landslideWorkload } from '../../src/shared/workloads/landslide'
import { CLI } from '../helpers/serve'

const folders: string[] = []
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'paralab-ranks-gpu-'))
  folders.push(d)
  return d
}
afterAll(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('landslide gpu ranks from the command line', () => {
  it('2 ranks in double-float give the reference md5', async () => {
    const dir = folder()
    await writeExample(dir, landslideWorkload.example.files)
    const grids = landslideWorkload.example.files.map((f) => join(dir, f))
    const args = [CLI, 'landslide', ...grids, '--steps', '40', '--backend', 'gpu', '--variant', 'fused', '--precision', 'accurate', '--exchange-every', '3', '--json']
    const exits = await launchRanks({ command: process.execPath, args, ranks: 2, folder: folder() }).exited
    for (const e of exits) {
      expect(e.code, e.stderr).toBe(0)
      const r = JSON.parse(e.stdout).results
      expect(r.reference.backend).toBe('active')
      expect(r.runs['gpu/fused']).toMatchObject({ precision: 'double-float', ranks: 2, exchange_every: 3, md5: r.reference.md5 })
      // Each rank's GPU as asked for and as seen: a software adapter is no GPU, so not observed, never assumed.
      expect(r.runs['gpu/fused']).toMatchObject({ gpus_requested: ['shared', 'shared'], gpus_observed: ['not observed', 'not observed'] })
      expect(r.ranks.bands.map((b: { rank: number }) => b.rank)).toEqual([0, 1])
    }
  })

  it('refuses checkpoints with gpu ranks, saying why', async () => {
    const dir = folder()
    await writeExample(dir, landslideWorkload.example.files)
    const grids = landslideWorkload.example.files.map((f) => join(dir, f))
    const args = [CLI, 'landslide', ...grids, '--steps', '40', '--backend', 'gpu', '--checkpoint-every', '10', '--json']
    const exits = await launchRanks({ command: process.execPath, args, ranks: 2, folder: folder() }).exited
    for (const e of exits) {
      expect(e.code).toBe(1)
      expect(e.stderr).toContain('--checkpoint-every with --backend gpu: checkpoints hold f64 rows, and a gpu rank keeps f32 or double-float pairs')
    }
  })
})
