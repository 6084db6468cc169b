// Ranks overlapping their halo exchanges with their steps (each rank's edge rows computed first on
// strips and sent while its band runs) give the same bits as ranks exchanging between steps and as
// one machine: the Tessina grid at 100 steps, serial and active, on 2 and 4 ranks, several S, and
// 3 overlapping ranks resumed from a checkpoint taken inside a block. Runs the built CLI (npm run build).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { launchRanks } from '../../src/main/ranks/launch'
import { CLI } from '../helpers/serve'

const DATA = join(__dirname, '../../../shared/data/landslide')
const TESSINA = ['header', 'dem', 'source'].map((f) => join(DATA, `tessina_${f}.txt`))
const MD5_100 = 'f9ded733d6c9e13963e41ea0cc37a7d4'

const folders: string[] = []
afterAll(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })))

async function run(ranks: number, backend: string, every: number, overlap: 'on' | 'off', extra: string[] = [], folder = mkdtempSync(join(tmpdir(), 'paralab-ranks-overlap-'))) {
  folders.push(folder)
  const args = [CLI, 'landslide', ...TESSINA, '--steps', '100', '--backend', backend, '--exchange-every', String(every), '--frames', '30', '--json', ...extra]
  const exits = await launchRanks({ command: process.execPath, args, ranks, folder, env: { PARALAB_GPU: 'off', PARALAB_RANKS_OVERLAP: overlap } }).exited
  return exits.map((e) => {
    expect(e.code, e.stderr).toBe(0)
    return JSON.parse(e.stdout).results
  })
}

describe('ranks overlapping exchanges with steps', () => {
  it.each([
    [2, 'active', 1],
    [2, 'serial', 7],
    [4, 'active', 3],
    [4, 'active', 16],
  ])('%i ranks of %s exchanging every %i steps: the reference md5 with and without overlap', async (ranks, backend, every) => {
    for (const overlap of ['on', 'off'] as const) {
      const all = await run(ranks, backend, every, overlap)
      for (const r of all) {
        expect(r.reference.md5).toBe(MD5_100)
        expect(r.runs[backend]).toMatchObject({ ranks, exchange_every: every, md5: MD5_100 })
        // Samples every 30 steps fall inside blocks: the band's steps are split around them.
        expect(r.series.step).toEqual([0, 30, 60, 90, 100])
        expect(r.ranks.bands).toHaveLength(ranks)
        for (const b of r.ranks.bands) expect(b.exchange_ms).toBeGreaterThanOrEqual(0)
      }
    }
  })

  it('3 ranks overlapping, stopped at a checkpoint inside a block and resumed, end with the reference md5', async () => {
    const job = mkdtempSync(join(tmpdir(), 'paralab-ranks-overlap-'))
    // 90 steps with checkpoints every 40 (blocks of 7 steps: 40 and 80 fall inside blocks), then 100 from step 80.
    const first = await run(3, 'active', 7, 'on', ['--checkpoint-every', '40', '--steps', '90'], job)
    expect(first[0].checkpoints).toMatchObject({ resumed_from: 0, last: 80 })
    const again = await run(3, 'active', 7, 'on', ['--checkpoint-every', '40'], job)
    expect(again[0].checkpoints.resumed_from).toBe(80)
    expect(again[0].reference.md5).toBe(MD5_100)
  })
})
