// A job folder is never turned against the user who submitted it: `--executor local` runs the text
// Paralab generated, not job.sbatch or merge.sbatch as someone swapped them while the tasks ran (a
// marker file says whether a swapped script ran); an --out folder others may write is refused; links
// planted in an earlier run's folder (a task's folder, runs/, an intermediate component) are not
// followed by --force or a merge. On Slurm, sbatch gets the generated text, not a file swapped
// between writing and submitting (a stand-in sbatch swaps it first, as a racing attacker would).
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { slurmMissing, startSlurm, type SlurmCluster } from '../helpers/slurm'
import { CLI } from '../helpers/serve'
import { paralab } from './paralab'
import { statsFolder } from './cluster-helpers'

const dir = mkdtempSync(join(tmpdir(), 'paralab-job-links-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let data: string
beforeAll(() => {
  data = statsFolder(dir)
})
const STATS = ['--backend', 'serial', '--repeat', '1']

/** A script that, if it ever runs, leaves `marker` behind. */
const hostile = (marker: string) => `#!/bin/bash\necho "ran as $(id -u)" > ${marker}\n`

/** Runs paralab without blocking this process, so that a swap can race it. */
function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, cwd: dir })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

/** Replaces `path` (by rename, as an attacker who can write the folder would) as soon as it appears. */
async function swapWhenWritten(path: string, text: string, until: Promise<unknown>): Promise<boolean> {
  let done = false
  void until.then(() => (done = true))
  while (!done) {
    if (existsSync(path)) {
      writeFileSync(`${path}.evil`, text, { mode: 0o755 })
      renameSync(`${path}.evil`, path)
      return true
    }
    await new Promise((r) => setTimeout(r, 2))
  }
  return false
}

describe('--executor local', () => {
  it('runs the scripts Paralab generated, not job.sbatch and merge.sbatch swapped in the folder while the tasks run', async () => {
    const out = join(dir, 'swapped')
    const marker = join(dir, 'swapped-ran')
    const run = start(['stats', data, ...STATS, '--executor', 'local', '--array-parallelism', '1', '--out', out, '--json'])
    const swapped = await Promise.all([swapWhenWritten(join(out, 'job.sbatch'), hostile(marker), run), swapWhenWritten(join(out, 'merge.sbatch'), hostile(marker), run)])
    const r = await run
    expect(swapped).toEqual([true, true])
    expect(existsSync(marker), 'a swapped script ran').toBe(false)
    // The generated scripts ran: every task and the merge, with the bad file reported as before.
    expect(r.code, r.stderr).toBe(1)
    const merged = JSON.parse(r.stdout)
    expect(merged.cluster.tasks.map((t: any) => t.state)).toEqual(['COMPLETED', 'COMPLETED', 'FAILED'])
    expect(existsSync(join(out, 'results.json'))).toBe(true)
    // No private copy is left behind.
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('paralab-local-job-') && r.stderr.includes(n))).toEqual([])
  }, 120_000)

  it('refuses an --out that others may write without the sticky bit, or one inside such a folder, naming the folder and its mode; nothing runs', () => {
    const open = join(dir, 'open')
    mkdirSync(open)
    chmodSync(open, 0o777)
    const r = paralab(['stats', data, ...STATS, '--executor', 'local', '--out', open], {}, 60_000, dir)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`--out ${open}: ${open} is writable by every user (mode 777) without the sticky bit`)
    expect(readdirSync(open)).toEqual([])
    const group = join(dir, 'group')
    mkdirSync(group)
    chmodSync(group, 0o775)
    const inside = paralab(['stats', data, ...STATS, '--executor', 'local', '--out', join(group, 'job')], {}, 60_000, dir)
    expect(inside.code).not.toBe(0)
    expect(inside.stderr).toContain(`${group} is writable by its group (mode 775) without the sticky bit`)
    expect(existsSync(join(group, 'job'))).toBe(false)
    // A sticky folder (as /tmp) is fine: others cannot replace what this user made in it.
    chmodSync(group, 0o1777)
    const sticky = paralab(['stats', data, ...STATS, '--executor', 'local', '--out', join(group, 'job'), '--json'], {}, 60_000, dir)
    expect(sticky.code, sticky.stderr).toBe(1)
    expect(JSON.parse(sticky.stdout).cluster.tasks).toHaveLength(3)
  }, 120_000)

  it('--force deletes nothing through links planted in the earlier run\'s folder: a task\'s folder, runs/<index>, tasks/ itself', () => {
    const out = join(dir, 'planted')
    expect(paralab(['stats', data, ...STATS, '--executor', 'local', '--out', out], {}, 60_000, dir).code).toBe(1)
    const victim = join(dir, 'victim')
    mkdirSync(victim)
    for (const f of ['envelope.json', 'stdout.log', 'results.json', 'keep.txt']) writeFileSync(join(victim, f), 'victim')
    mkdirSync(join(victim, '0'))
    writeFileSync(join(victim, '0', 'envelope.json'), 'victim')
    rmSync(join(out, 'tasks', '1'), { recursive: true })
    symlinkSync(victim, join(out, 'tasks', '1'))
    mkdirSync(join(out, 'runs'))
    symlinkSync(victim, join(out, 'runs', '0'))
    const again = paralab(['stats', data, ...STATS, '--executor', 'local', '--out', out, '--force'], {}, 60_000, dir)
    expect(again.code, again.stderr).toBe(1)
    expect(readdirSync(victim).sort()).toEqual(['0', 'envelope.json', 'keep.txt', 'results.json', 'stdout.log'])
    // tasks/ as a link to a folder of task-like folders: replaced, never emptied.
    rmSync(join(out, 'tasks'), { recursive: true })
    symlinkSync(victim, join(out, 'tasks'))
    const third = paralab(['stats', data, ...STATS, '--executor', 'local', '--out', out, '--force'], {}, 60_000, dir)
    expect(third.code, third.stderr).toBe(1)
    expect(readdirSync(victim).sort()).toEqual(['0', 'envelope.json', 'keep.txt', 'results.json', 'stdout.log'])
    expect(readFileSync(join(victim, '0', 'envelope.json'), 'utf8')).toBe('victim')
  }, 180_000)
})

const missing = slurmMissing()

describe.skipIf(missing)('on Slurm', () => {
  let cluster: SlurmCluster
  beforeAll(async () => {
    cluster = await startSlurm()
  }, 180_000)
  afterAll(() => cluster?.stop())

  it('submits the generated text: a job.sbatch and merge.sbatch swapped just before sbatch reads them never run', async () => {
    const out = join(dir, 'slurm-swapped')
    const marker = join(dir, 'slurm-swapped-ran')
    // sbatch as a racing attacker would meet it: the folder's scripts swapped the moment before sbatch runs.
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'evil.sh'), hostile(marker), { mode: 0o755 })
    writeFileSync(
      join(bin, 'sbatch'),
      `#!/bin/bash\nfor f in ${out}/job.sbatch ${out}/merge.sbatch; do [ -e "$f" ] && cp ${join(bin, 'evil.sh')} "$f"; done\nexec /usr/bin/sbatch "$@"\n`,
      { mode: 0o755 },
    )
    const env = { ...cluster.env, PATH: `${bin}:${cluster.env.PATH ?? process.env.PATH}` }
    const r = paralab(['stats', join(data, 'a.csv'), ...STATS, '--slurm', '--out', out, '--wait', '--json'], env, 180_000, dir)
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(out, 'job.sbatch'), 'utf8')).toContain('echo "ran as')
    expect(existsSync(marker), 'a swapped script ran').toBe(false)
    const merged = JSON.parse(r.stdout)
    expect(merged.cluster).toMatchObject({ executor: 'slurm', failed: [] })
    expect(merged.results.files.map((f: any) => f.path)).toEqual([join(data, 'a.csv')])
  }, 200_000)
})
