// The ranks module over real TCP between real processes (started by the local launcher): typed
// arrays sent and received in a ring, barrier, gather to rank 0, broadcast; a rank that throws or is
// killed makes every other rank exit with an error naming it; a rank 0 that never appears is
// reported with the job folder, within the timeout.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { launchRanks } from '../../src/main/ranks/launch'
import { placementFromEnv } from '../../src/main/ranks/placement'
import { Ranks } from '../../src/main/ranks/ranks'

const PROGRAM = resolve(__dirname, '../helpers/rank-program.ts')
const JITI = resolve(__dirname, '../../node_modules/jiti/lib/jiti-cli.mjs')
const folders: string[] = []
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'paralab-ranks-'))
  folders.push(d)
  return d
}
afterAll(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })))

const run = (ranks: number, ...args: string[]) =>
  launchRanks({ command: process.execPath, args: [JITI, PROGRAM, ...args], ranks, folder: folder(), env: { RANKS_TIMEOUT_MS: '20000' } }).exited

describe('ranks', () => {
  it('reads its placement from the environment, and is no rank without a job folder', () => {
    expect(placementFromEnv({ SLURM_PROCID: '2', SLURM_NTASKS: '3', SLURM_JOB_ID: '17', SLURM_RESTART_COUNT: '1', PARALAB_JOB_DIR: '/jobs/17' })).toEqual({ rank: 2, size: 3, job: '17.1', folder: '/jobs/17' })
    expect(placementFromEnv({ SLURM_PROCID: '0', SLURM_NTASKS: '2' })).toBeUndefined()
    expect(() => placementFromEnv({ SLURM_PROCID: '2', SLURM_NTASKS: '2', PARALAB_JOB_DIR: '/j' })).toThrow(/SLURM_PROCID 2 is not below SLURM_NTASKS 2/)
  })

  it('sends typed arrays in a ring, meets at a barrier, gathers to rank 0 and broadcasts from it', async () => {
    const exits = await run(3, 'exchange')
    for (const e of exits) expect(e.code, e.stderr).toBe(0)
    const out = exits.map((e) => JSON.parse(e.stdout))
    expect(out.map((o) => o.got)).toEqual([[2.5, -1], [0.5, -1], [1.5, -1]])
    expect(out[0].all).toEqual([0, 10, 20])
    expect(out[1].all).toBeUndefined()
    expect(out.every((o) => o.shared.join() === '42,43')).toBe(true)
  })

  it('a rank that throws makes every rank exit 1 with its reason and rank', async () => {
    const exits = await run(3, 'throw', '1')
    for (const e of exits) {
      expect(e.code).toBe(1)
      expect(e.stderr).toContain('rank 1 failed: a deliberate failure')
    }
  })

  it('a rank killed makes every other rank exit 1 naming it; none hangs', async () => {
    const started = Date.now()
    const exits = await run(3, 'die', '2')
    expect(exits[2].signal).toBe('SIGKILL')
    for (const e of exits.slice(0, 2)) {
      expect(e.code).toBe(1)
      expect(e.stderr).toContain('rank 2 ended without a word')
    }
    expect(Date.now() - started).toBeLessThan(15_000)
  })

  it('a rank whose rank 0 never publishes its address fails within the timeout, naming the file and the folder', async () => {
    const dir = folder()
    const started = Date.now()
    await expect(Ranks.connect({ rank: 1, size: 2, job: 'lonely', folder: dir }, { timeoutMs: 1500, key: randomBytes(32) })).rejects.toThrow(
      new RegExp(`rank 1: rank 0's address did not appear in ${dir}/ranks-rank0.json \\(no such file\\): the job folder must be on a filesystem that every node of the job sees`),
    )
    expect(Date.now() - started).toBeLessThan(5000)
    await expect(Ranks.connect({ rank: 0, size: 3, job: 'alone', folder: dir }, { timeoutMs: 1500, host: '127.0.0.1', key: randomBytes(32) })).rejects.toThrow(/rank 0: ranks 1, 2 did not connect within the time allowed/)
  })
})
