// `paralab landslide` as R ranks started by the local launcher (as srun would): the Tessina grid in
// bands with halo exchange gives the reference md5 whatever R and S; a rank killed mid-run makes
// every rank exit 1 naming it, leaving only complete checkpoints; the rerun resumes from the last one
// and ends with the reference md5; a checkpoint of another grid, and a corrupted one, are refused;
// a checkpoint that lies (an edited manifest, names outside its folder, a FIFO, a symlink) is
// refused naming the file and what differs; a checkpoint folder that cannot hold checkpoints is
// refused at start; a symlink planted in a pending folder writes nothing through it; more ranks
// than rows are refused. Runs the built CLI (npm run build).
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { landslideWorkload, type LandslideParams } from '../../src/shared/workloads/landslide'
import { validateParams } from '../../src/shared/workloads/schema'
import { launchRanks, type RankExit } from '../../src/main/ranks/launch'
import { runLandslideRanks } from '../../src/main/workloads/landslide/run-ranks'
import { writeExample } from '../../src/main/workloads/landslide/example'
import { CLI } from '../helpers/serve'
import { errorLines, paralab } from './paralab'

const DATA = join(__dirname, '../../../shared/data/landslide')
const TESSINA = ['header', 'dem', 'source'].map((f) => join(DATA, `tessina_${f}.txt`))
const TOY = ['header', 'dem', 'source'].map((f) => join(DATA, `test_${f}.txt`))
const MD5_100 = 'f9ded733d6c9e13963e41ea0cc37a7d4'
const MD5_4000 = '8ed78fa13180c12b4d8aeec7ce6a362a'

const folders: string[] = []
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'paralab-landslide-ranks-'))
  folders.push(d)
  return d
}
afterAll(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })))

const launch = (ranks: number, job: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  launchRanks({ command: process.execPath, args: [CLI, 'landslide', ...TESSINA, ...args], ranks, folder: job, env: { PARALAB_GPU: 'off', ...env } })

/** Halo folders (neighbour-halos.ts) of these processes still under /dev/shm or the temporary folder. */
const haloFoldersOf = (pids: (number | undefined)[]) =>
  ['/dev/shm', tmpdir()].flatMap((root) => (existsSync(root) ? readdirSync(root) : []).filter((n) => pids.some((pid) => n.startsWith(`paralab-halos-${pid}-`))))

const envelopeOf = (e: RankExit) => {
  expect(e.code, e.stderr).toBe(0)
  return JSON.parse(e.stdout)
}

describe('the landslide in ranks', () => {
  it.each([
    [2, 5, 'shared memory'],
    [3, 1, 'shared memory'],
    [3, 7, 'shared memory'],
    [3, 7, 'tcp'],
  ])('on %i ranks exchanging every %i steps, halos through %s, gives the reference md5 at 100 steps, on every rank', async (ranks, every, halos) => {
    const launched = launch(ranks, folder(), ['--steps', '100', '--exchange-every', String(every), '--json'], halos === 'tcp' ? { PARALAB_RANKS_HALOS: 'tcp' } : {})
    const exits = await launched.exited
    expect(haloFoldersOf(launched.processes.map((p) => p.pid))).toEqual([])
    for (const e of exits) {
      const r = envelopeOf(e).results
      expect(r.ranks.bands.map((b: { halos: string }) => b.halos)).toEqual(Array(ranks).fill(halos))
      expect(r.reference.md5).toBe(MD5_100)
      expect(r.ranks).toMatchObject({ size: ranks, exchange_every: every })
      expect(r.ranks.bands.map((b: { r0: number }) => b.r0)[0]).toBe(1)
      expect(r.ranks.bands.at(-1).r1).toBe(609)
      expect(r.runs.active).toMatchObject({ ranks, exchange_every: every, md5: MD5_100 })
      // The same samples as a run on one machine: 20 over the run, the first and last steps included.
      expect(r.series.step).toEqual(Array.from({ length: 21 }, (_, i) => i * 5))
    }
  })

  it('matches the series and maps of the run on one machine', async () => {
    const [local] = [paralab(['landslide', ...TESSINA, '--steps', '100', '--json'], { PARALAB_GPU: 'off' })]
    const one = JSON.parse(local.stdout).results
    const exits = await launch(2, folder(), ['--steps', '100', '--json']).exited
    const two = envelopeOf(exits[0]).results
    expect(two.series).toEqual(one.series)
    expect(two.maps).toEqual(one.maps)
  })

  it('a rank killed mid-run ends every rank with the rank named and leaves only complete checkpoints; the rerun resumes and ends with the reference md5 at 4000 steps', async () => {
    const job = folder()
    const args = ['--steps', '4000', '--checkpoint-every', '500', '--exchange-every', '9', '--json']
    const first = launch(3, job, args)
    const checkpoints = join(job, 'checkpoints')
    // Killed once a checkpoint is complete.
    while (!(existsSync(checkpoints) && readdirSync(checkpoints).some((n) => n.startsWith('step-')))) await new Promise((r) => setTimeout(r, 50))
    first.processes[1].kill('SIGKILL')
    const exits = await first.exited
    // The halos' shared memory is gone with the ranks, the killed one's too.
    expect(haloFoldersOf(first.processes.map((p) => p.pid))).toEqual([])
    expect(exits[1].signal).toBe('SIGKILL')
    for (const e of [exits[0], exits[2]]) {
      expect(e.code).toBe(1)
      expect(e.stderr).toMatch(/rank 1 ended without a word: its process died or was killed/)
    }
    const left = readdirSync(checkpoints)
    expect(left.every((n) => /^step-\d{7}$/.test(n))).toBe(true)
    for (const n of left) expect(existsSync(join(checkpoints, n, 'manifest.json'))).toBe(true)
    const reached = Math.max(...left.map((n) => Number(n.slice(5))))
    expect(reached).toBeLessThan(4000)

    // Started again with the same job folder (as a requeued job is): it resumes at the last checkpoint.
    const again = await launch(3, job, args).exited
    const r = envelopeOf(again[0]).results
    expect(r.checkpoints.resumed_from).toBeGreaterThanOrEqual(reached)
    expect(r.reference.md5).toBe(MD5_4000)
    expect(r.series.step.at(0)).toBe(0)
    expect(r.series.step.at(-1)).toBe(4000)
    // Only the two newest checkpoints remain.
    expect(readdirSync(checkpoints).sort()).toEqual(['step-0003000', 'step-0003500'])
  })

  it('on one machine: checkpoints resume, a checkpoint of another grid and a corrupted one are refused, naming why', async () => {
    const dir = folder()
    const ck = join(dir, 'ck')
    const run = (grids: string[], steps: number) => paralab(['landslide', ...grids, '--steps', String(steps), '--checkpoint-every', '40', '--checkpoint-dir', ck, '--json'], { PARALAB_GPU: 'off' })
    const partial = run(TESSINA, 90)
    expect(JSON.parse(partial.stdout).results.checkpoints).toMatchObject({ resumed_from: 0, last: 80 })
    const resumed = run(TESSINA, 100)
    const r = JSON.parse(resumed.stdout).results
    expect(r.checkpoints.resumed_from).toBe(80)
    expect(r.reference.md5).toBe(MD5_100)

    await writeExample(dir, landslideWorkload.example.files)
    const other = run(landslideWorkload.example.files.map((f) => join(dir, f)), 100)
    expect(other.code).toBe(1)
    expect(other.stderr).toMatch(new RegExp(`checkpoint ${ck}/step-0000080 is of another grid: 610 × 496 from .*tessina_header.txt.*, this run's is 120 × 160 from .*slope-dem.asc`))

    const band = join(ck, 'step-0000080', 'band-0.f64')
    const bytes = readFileSync(band)
    bytes[1234] ^= 0xff
    writeFileSync(band, bytes)
    const corrupted = run(TESSINA, 100)
    expect(corrupted.code).toBe(1)
    expect(corrupted.stderr).toContain(`checkpoint ${ck}/step-0000080 is corrupted: band-0.f64 does not match its sha256`)
    expect(existsSync(join(ck, 'step-0000040', 'manifest.json'))).toBe(true)
  })

  describe('a checkpoint that lies, on one machine (the small test grid)', () => {
    // One real run leaves step-0000040 and step-0000080; each case edits a copy of that folder.
    let written: string
    const ctx = (dir: string, job: string) => ({
      signal: new AbortController().signal,
      progress: () => {},
      input: async (p: string) => p,
      gpu: async () => {
        throw new Error('no GPU')
      },
      ranks: { rank: 0, size: 1, job, folder: dir },
    })
    const run = (ck: string, timeout?: number) => paralab(['landslide', ...TOY, '--steps', '100', '--checkpoint-every', '40', '--checkpoint-dir', ck, '--json'], { PARALAB_GPU: 'off' }, timeout)
    /** A copy of the real checkpoints, its newest manifest edited by `edit` (and sealed again when `reseal`, as one who knows the format would). */
    const tampered = (edit: (m: any) => void, reseal = false) => {
      const ck = join(folder(), 'ck')
      execFileSync('cp', ['-a', written, ck])
      const newest = join(ck, 'step-0000080')
      const m = JSON.parse(readFileSync(join(newest, 'manifest.json'), 'utf8'))
      edit(m)
      const text = JSON.stringify(m)
      writeFileSync(join(newest, 'manifest.json'), text)
      if (reseal) writeFileSync(join(newest, 'manifest.sha256'), `${createHash('sha256').update(text).digest('hex')}  manifest.json\n`)
      return { ck, newest, kept: `(the previous checkpoint, ${join(ck, 'step-0000040')}, is kept: remove this one to resume from it)` }
    }
    const refused = (r: ReturnType<typeof run>) => {
      expect(r.code, r.stderr).toBe(1)
      return errorLines(r.stderr)[0]
    }

    let first: any
    beforeAll(() => {
      written = join(folder(), 'ck')
      const r = run(written)
      expect(r.code, r.stderr).toBe(0)
      first = JSON.parse(r.stdout).results
      expect(first.checkpoints).toMatchObject({ resumed_from: 0, last: 80 })
    })

    it('writes sealed checkpoints, and resumes from them', () => {
      expect(readdirSync(join(written, 'step-0000080')).sort()).toEqual(['band-0.f64', 'manifest.json', 'manifest.sha256'])
      // The seal is what sha256sum writes and checks.
      expect(execFileSync('sha256sum', ['-c', 'manifest.sha256'], { cwd: join(written, 'step-0000080'), encoding: 'utf8' })).toBe('manifest.json: OK\n')
      const { ck } = tampered(() => {})
      const again = JSON.parse(run(ck).stdout).results
      expect(again.checkpoints).toMatchObject({ resumed_from: 80, last: 80 })
      expect(again.reference.md5).toBe(first.reference.md5)
      expect(again.series).toEqual(first.series)
    })

    it.each([
      ['the step (80 → 90)', (m: any) => (m.step = 90)],
      ['a sample (series.mass[1] = 1234.5)', (m: any) => (m.samples.series.mass[1] = 1234.5)],
      ['a parameter (p_r = 0.4)', (m: any) => (m.identity.p_r = 0.4)],
    ])('an edited manifest, %s, is refused naming it', (_, edit) => {
      const { ck, newest, kept } = tampered(edit)
      expect(refused(run(ck))).toBe(`paralab: checkpoint ${newest} is corrupted: its manifest.json does not match the sha256 in manifest.sha256: it was changed after it was written ${kept}`)
    })

    it('a manifest sealed again with another step than its folder\'s name is refused, saying both', () => {
      const { ck, newest, kept } = tampered((m) => (m.step = 90), true)
      expect(refused(run(ck))).toBe(`paralab: checkpoint ${newest} is corrupted: its manifest.json says step 90, its folder's name step 80 ${kept}`)
    })

    it.each(['../../outside/band.f64', '/etc/passwd'])('a band named %s is refused before it is opened', (name) => {
      const { ck, newest, kept } = tampered((m) => (m.bands[0].file = name), true)
      // The file outside holds the band itself: read, it would be resumed from.
      mkdirSync(join(ck, '..', 'outside'), { recursive: true })
      copyFileSync(join(newest, 'band-0.f64'), join(ck, '..', 'outside', 'band.f64'))
      expect(refused(run(ck))).toBe(`paralab: checkpoint ${newest} is corrupted: its manifest.json names ${JSON.stringify(name)}, which is not a plain file name inside its folder ${kept}`)
    })

    it('a FIFO as manifest.json or as a band is refused at once, naming it; a symlinked band too', () => {
      for (const [file, what] of [
        ['manifest.json', 'a named pipe (FIFO)'],
        ['band-0.f64', 'a named pipe (FIFO)'],
      ]) {
        const { ck, newest, kept } = tampered(() => {})
        rmSync(join(newest, file))
        execFileSync('mkfifo', [join(newest, file)])
        const r = run(ck, 20_000)
        expect(refused(r)).toBe(`paralab: checkpoint ${newest} is corrupted: ${file} is ${what}, not a file Paralab wrote ${kept}`)
        expect(r.ended - r.started).toBeLessThan(15_000)
      }
      const { ck, newest, kept } = tampered(() => {})
      const band = join(newest, 'band-0.f64')
      copyFileSync(band, join(ck, 'elsewhere.f64'))
      rmSync(band)
      symlinkSync(join(ck, 'elsewhere.f64'), band)
      expect(refused(run(ck))).toBe(`paralab: checkpoint ${newest} is corrupted: band-0.f64 is a symbolic link, not a file Paralab wrote ${kept}`)
    })

    it('a checkpoint folder that is a file, a device or /proc/self is refused at start', () => {
      const file = join(folder(), 'file')
      writeFileSync(file, 'not a folder')
      expect(refused(run(file))).toBe(`paralab: cannot keep checkpoints in ${file}: it is a file, not a folder`)
      expect(readFileSync(file, 'utf8')).toBe('not a folder')
      expect(refused(run('/dev/null'))).toBe('paralab: cannot keep checkpoints in /dev/null: it is a device, not a folder')
      for (const dir of ['/proc/self', '/proc/self/checkpoints']) {
        const r = run(dir, 20_000)
        expect(refused(r)).toMatch(new RegExp(`^paralab: cannot keep checkpoints in ${dir}: (no folder can be made in it|cannot make /proc/self/checkpoints) \\(ENOENT\\)$`))
        expect(r.ended - r.started).toBeLessThan(15_000)
      }
    })

    it('a symlink planted in the pending folder an attempt once used writes nothing through it', async () => {
      const dir = folder()
      const ck = join(dir, 'ck')
      const victim = join(dir, 'victim')
      writeFileSync(victim, 'precious')
      // The name a pending folder had when it followed from the job's identity alone.
      mkdirSync(join(ck, '.step-0000040.planted.tmp'), { recursive: true })
      symlinkSync(victim, join(ck, '.step-0000040.planted.tmp', 'band-0.f64'))
      const params = validateParams('landslide', landslideWorkload.params, { grids: TOY, steps: 100, backends: ['active'], checkpointEvery: 40, checkpointDir: ck }) as LandslideParams
      const done = await runLandslideRanks(params, ctx(dir, 'planted'))
      expect(done.results.checkpoints).toMatchObject({ resumed_from: 0, last: 80 })
      expect(readFileSync(victim, 'utf8')).toBe('precious')
      expect(readdirSync(ck).sort()).toEqual(['step-0000040', 'step-0000080'])
    })
  })

  it('refuses more ranks than interior rows, before connecting', async () => {
    const params = validateParams('landslide', landslideWorkload.params, { grids: TOY, steps: 10 }) as LandslideParams
    const ctx = {
      signal: new AbortController().signal,
      progress: () => {},
      input: async (p: string) => p,
      gpu: async () => {
        throw new Error('no GPU')
      },
      ranks: { rank: 3, size: 9, job: 'too-many', folder: folder() },
    }
    await expect(runLandslideRanks(params, ctx)).rejects.toThrow('9 ranks need a row each, and this grid has 8 interior rows (10 in all): use at most 8 ranks')
  })
})
