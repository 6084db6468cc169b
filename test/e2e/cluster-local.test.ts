// Cluster runs without a cluster: `--executor local` runs the generated scripts' tasks here with
// the same folder layout and merge; bad cluster options and a missing sbatch are refused before
// anything is written; a merge that finds no task output writes nothing.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI } from '../helpers/serve'
import { errorLines, paralab } from './paralab'
import { expectSameRun, hostileFolder, hostileRunsFolder, HOSTILE_NAMES, pwnedUnder, statsFolder, timeless } from './cluster-helpers'

const dir = mkdtempSync(join(tmpdir(), 'paralab-cluster-local-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let data: string
beforeAll(() => {
  data = statsFolder(dir)
})

const STATS = ['--backend', 'serial', '--repeat', '1']
const jsonOfRun = (r: { code: number | null; stdout: string; stderr: string }) => {
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}
// Run in the test's folder: whatever a script might run there stays there, and is looked for there.
const inDir = (args: string[], env: NodeJS.ProcessEnv = {}) => paralab(args, { ...env, PWD: dir }, 120_000, dir)

describe('--executor local', () => {
  it('runs the script\'s tasks here and merges them into the local run\'s results, the bad file reported with its error', () => {
    const out = join(dir, 'local-job')
    const local = paralab(['stats', data, ...STATS, '--json'])
    expect(local.code).toBe(1)
    const run = inDir(['stats', data, ...STATS, '--executor', 'local', '--array-parallelism', '2', '--out', out, '--json'])
    expect(run.code, run.stderr).toBe(1)
    const merged = JSON.parse(run.stdout)
    expectSameRun(merged, JSON.parse(local.stdout))
    expect(merged.results.failed).toEqual([{ path: join(data, 'c.csv'), error: expect.objectContaining({ message: expect.stringContaining('"oops" is not a number') }) }])
    expect(merged.cluster.executor).toBe('local')
    expect(merged.cluster.tasks.map((t: any) => [t.index, t.files, t.state, t.exit_code])).toEqual([
      [0, [join(data, 'a.csv')], 'COMPLETED', 0],
      [1, [join(data, 'b.csv')], 'COMPLETED', 0],
      [2, [join(data, 'c.csv')], 'FAILED', 1],
    ])
    expect(merged.cluster.tasks[2].error.message).toContain('"oops" is not a number')
    expect(merged.cluster.failed).toEqual([2])
    // The same layout as on Slurm: the scripts, each task's folder, the result set beside them.
    const script = readFileSync(join(out, 'job.sbatch'), 'utf8')
    expect(script).toContain(`PARALAB=(${process.execPath} ${CLI})`)
    expect(script).toContain('#SBATCH --array=0-2%2')
    expect(script).toContain(`TASKS_DIR=${out}/tasks\n`)
    expect(script).toContain('--task-dir="$TASKS_DIR/$TASK" -- "${FILES[$TASK]}"')
    for (const i of [0, 1]) expect(readdirSync(join(out, 'tasks', String(i))).sort()).toEqual(['envelope.json', 'exit.json', 'progress.ndjson', 'state.json', 'stderr.log', 'stdout.log'])
    expect(readdirSync(join(out, 'tasks', '2')).sort()).toEqual(['error.json', 'exit.json', 'progress.ndjson', 'state.json', 'stderr.log', 'stdout.log'])
    const events = readFileSync(join(out, 'tasks', '0', 'progress.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(events.at(-1)).toMatchObject({ type: 'done', exit_code: 0 })
    expect(events.some((e) => typeof e.phase === 'string' && typeof e.fraction === 'number')).toBe(true)
    for (const f of ['results.json', 'results.csv', 'files.csv', 'a-cv.svg', 'cluster.json']) expect(existsSync(join(out, f)), f).toBe(true)
    // paralab merge DIR does it again by hand, the same.
    const again = paralab(['merge', out, '--json'])
    expect(again.code).toBe(1)
    expect(JSON.parse(again.stdout).results).toEqual(merged.results)
  })

  it('a task ended by the scheduler is a row marked cancelled, and every file of the merged set says the run is partial and what is missing', () => {
    const out = join(dir, 'cancelled-job')
    const run = inDir(['stats', join(data, 'a.csv'), join(data, 'b.csv'), ...STATS, '--executor', 'local', '--out', out, '--json'])
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).partial).toBeUndefined()
    // Task 1 as a scheduler's cancel leaves it (the local executor cannot be cancelled from here): no envelope, no exit record.
    const task = join(out, 'tasks', '1')
    for (const f of ['envelope.json', 'exit.json']) rmSync(join(task, f))
    writeFileSync(join(task, 'state.json'), JSON.stringify({ state: 'CANCELLED', exit_code: 0, signal: 15 }))
    const merge = paralab(['merge', out, '--json'])
    const merged = JSON.parse(merge.stdout)
    const missing = [`${join(data, 'b.csv')} (task 1 CANCELLED)`]
    expect(merged).toMatchObject({ partial: true, missing })
    expect(merged.results.failed).toEqual([{ path: join(data, 'b.csv'), error: expect.objectContaining({ code: 'cancelled' }) }])
    expect(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))).toMatchObject({ partial: true, missing })
    expect(JSON.parse(readFileSync(join(out, 'cluster.json'), 'utf8'))).toMatchObject({ failed: [1], partial: true, missing })
    const files = readFileSync(join(out, 'files.csv'), 'utf8').trim().split('\n')
    expect(files.map((l) => l.split(',').slice(0, 2).join(','))).toEqual(['file,status', `${join(data, 'a.csv')},ok`, `${join(data, 'b.csv')},cancelled`])
  })

  it('runs a task of several ranks as that many processes, rank 0 writing the envelope and the others only their log', () => {
    const out = join(dir, 'ranks-job')
    const run = inDir(['stats', join(data, 'a.csv'), ...STATS, '--executor', 'local', '--ntasks', '2', '--out', out, '--json'])
    expect(run.code, run.stderr).toBe(0)
    expect(readFileSync(join(out, 'job.sbatch'), 'utf8')).toContain('srun --ntasks=2 --kill-on-bad-exit=1 "${PARALAB[@]}" stats --backend=serial --repeat=1 --task-dir="$TASKS_DIR/$TASK" -- "${FILES[@]}"')
    const files = readdirSync(join(out, 'tasks', '0')).sort()
    // ranks.key: the task's ranks prove to each other that they belong to it (mode 0600, written before the job runs).
    expect(files).toEqual(['envelope.json', 'exit.json', 'progress.ndjson', 'rank-1.log', 'ranks.key', 'state.json', 'stderr.log', 'stdout.log'])
    expect(readFileSync(join(out, 'tasks', '0', 'rank-1.log'), 'utf8')).toMatch(/rank 1\/2: exit 0/)
  })

  it('writes nothing when no task left a result, and says why', () => {
    const bad = join(dir, 'bad')
    mkdirSync(bad)
    writeFileSync(join(bad, 'x.csv'), 'acc_x,acc_y,acc_z\n1,2,no\n')
    writeFileSync(join(bad, 'y.csv'), 'acc_x,acc_y,acc_z\nno,2,3\n')
    const out = join(dir, 'bad-job')
    const run = inDir(['stats', bad, ...STATS, '--executor', 'local', '--out', out])
    expect(run.code).toBe(1)
    expect(errorLines(run.stderr).at(-1)).toMatch(/the merge wrote no result set in .*: paralab: no task of the job in .* left a result \(task 0 FAILED exit 1: .*x\.csv.*; task 1 FAILED exit 1: .*y\.csv/)
    const merge = paralab(['merge', out])
    expect(merge.code).toBe(1)
    expect(errorLines(merge.stderr)).toEqual([expect.stringMatching(/^paralab: no task of the job in .* left a result/)])
    expect(readdirSync(out).sort()).toEqual(['job.json', 'job.sbatch', 'merge.log', 'merge.sbatch', 'tasks'])
  })
})

describe('hostile names under --executor local', () => {
  it('runs files and folders named like commands, options or #SBATCH lines as the same command on the same files, executing nothing', () => {
    const hostile = hostileFolder(dir)
    const work = join(dir, "work 'q' $(touch PWNED)")
    mkdirSync(work)
    const out = join(hostileRunsFolder(dir), 'r1')
    const local = paralab(['stats', hostile, ...STATS, '--json'], {}, 120_000, work)
    const run = paralab(['stats', hostile, ...STATS, '--executor', 'local', '--out', out, '--json'], {}, 120_000, work)
    expect(run.code, run.stderr).toBe(0)
    const merged = JSON.parse(run.stdout)
    expectSameRun(merged, jsonOfRun(local))
    expect(merged.input.files.map((f: any) => f.path).sort()).toEqual([...HOSTILE_NAMES, 'plain.csv'].map((n) => join(hostile, n)).sort())
    expect(merged.cluster.tasks.every((t: any) => t.state === 'COMPLETED')).toBe(true)
    expect(existsSync(join(out, 'results.json'))).toBe(true)
    expect(pwnedUnder(dir)).toEqual([])
  })

  it('reads a file named like an option as a file: the files follow --', () => {
    const work = join(dir, 'dashes')
    mkdirSync(work)
    copyFileSync(join(data, 'a.csv'), join(work, '--example'))
    const local = paralab(['stats', ...STATS, '--json', '--', '--example'], {}, 120_000, work)
    const run = paralab(['stats', ...STATS, '--executor', 'local', '--out', 's', '--json', '--', '--example'], {}, 120_000, work)
    expect(run.code, run.stderr).toBe(0)
    expectSameRun(JSON.parse(run.stdout), jsonOfRun(local))
    expect(JSON.parse(run.stdout).input.files.map((f: any) => f.path)).toEqual([join(work, '--example')])
  })

  it('merges correlation on several files into one result set per file, in runs/<index>', () => {
    const cw = join(dir, 'cw')
    mkdirSync(cw)
    expect(paralab(['generate', 'walks', join(cw, 'w1.csv'), '--series', '8', '--length', '200']).code).toBe(0)
    expect(paralab(['generate', 'walks', join(cw, 'w2.csv'), '--series', '8', '--length', '200', '--seed', '2']).code).toBe(0)
    const out = join(dir, 'c0')
    const run = inDir(['correlation', cw, '--executor', 'local', '--out', out, '--json'])
    expect(run.code, run.stderr).toBe(0)
    const merged = JSON.parse(run.stdout)
    expect(merged.runs.map((r: any) => r.params.files)).toEqual([[join(cw, 'w1.csv')], [join(cw, 'w2.csv')]])
    for (const [i, file] of ['w1.csv', 'w2.csv'].entries()) {
      const own = jsonOfRun(paralab(['correlation', join(cw, file), '--json']))
      // The same correlations; the time each stage took is each run's own.
      const untimed = (r: unknown) => JSON.parse(JSON.stringify(timeless(r), (k, v) => (k === 'stages' || k === 'total' ? undefined : v)))
      expect(untimed(merged.runs[i].results)).toEqual(untimed(own.results))
      expect(JSON.parse(readFileSync(join(out, 'runs', String(i), 'results.json'), 'utf8')).params.files).toEqual([join(cw, file)])
    }
  })
})

describe('bad cluster input', () => {
  const refused = (args: string[], message: RegExp, env: NodeJS.ProcessEnv = {}) => {
    const out = join(dir, `refused-${Math.random().toString(36).slice(2)}`)
    const run = inDir(['stats', data, ...STATS, '--out', out, ...args], env)
    expect(run.code, run.stderr).toBe(1)
    expect(errorLines(run.stderr)).toEqual([expect.stringMatching(message)])
    expect(existsSync(out)).toBe(false)
  }

  it('names what is missing when sbatch is not on the PATH', () => {
    const empty = join(dir, 'empty-path')
    mkdirSync(empty)
    refused(['--slurm'], /^paralab: --slurm needs Slurm's client commands, and sbatch, squeue, scontrol are not on the PATH/, { PATH: empty })
  })

  it('refuses counts and time limits that are not Slurm\'s, naming the flag', () => {
    refused(['--executor', 'local', '--time', '99999999999999999999'], /^paralab: --time "99999999999999999999" is more than a year \(527040 minutes\); use UNLIMITED for no limit$/)
    refused(['--executor', 'local', '--nodes', '0x10'], /^paralab: --nodes must be a whole number from 1 to 100000, got "0x10"$/)
    refused(['--executor', 'local', '--ntasks', '1e2'], /^paralab: --ntasks must be a whole number from 1 to 1000000, got "1e2"$/)
  })

  it('refuses what no job script can carry, naming it, and writes nothing', () => {
    refused(['--executor', 'local', '--sbatch-arg', '--mem=1G\ntouch PWNED'], /^paralab: --sbatch-arg "--mem=1G\\ntouch PWNED" holds a line break or another control character, which a #SBATCH line cannot carry$/)
    const out = join(dir, 'new\nline')
    const nl = inDir(['stats', data, ...STATS, '--executor', 'local', '--out', out])
    expect(nl.code).toBe(1)
    expect(errorLines(nl.stderr)).toEqual([expect.stringMatching(/^paralab: the job folder \(--out\) ".*new\\nline" holds a line break/)])
    expect(existsSync(out)).toBe(false)
    // A name whose bytes are not UTF-8 reaches paralab as U+FFFD: a script would name another file.
    const bytes = join(dir, 'bytes')
    mkdirSync(bytes)
    copyFileSync(join(data, 'a.csv'), Buffer.concat([Buffer.from(`${bytes}/bad-`), Buffer.from([0xff]), Buffer.from('.csv')]))
    const nonUtf8 = inDir(['stats', bytes, ...STATS, '--executor', 'local', '--out', join(dir, 'bytes-job')])
    expect(nonUtf8.code).toBe(1)
    expect(errorLines(nonUtf8.stderr)).toEqual([expect.stringMatching(/^paralab: the file name ".*bad-\uFFFD\.csv" is not valid UTF-8 .*rename it$/)])
    expect(existsSync(join(dir, 'bytes-job'))).toBe(false)
    expect(pwnedUnder(dir)).toEqual([])
  })

  it('refuses a malformed --time, --ntasks 0, and cluster options without --slurm', () => {
    refused(['--executor', 'local', '--time', '1h'], /^paralab: --time must be minutes, minutes:seconds, hours:minutes:seconds, .*got "1h"$/)
    refused(['--executor', 'local', '--ntasks', '0'], /^paralab: --ntasks must be a whole number from 1 to \d+, got "0"$/)
    refused(['--partition', 'debug'], /^paralab: --partition is for cluster runs: add --slurm/)
    refused(['--executor', 'remote'], /^paralab: --executor must be slurm or local, got "remote"$/)
  })

  it('refuses an --out that cannot be written, is missing, or holds something else', () => {
    const run = inDir(['stats', data, ...STATS, '--executor', 'local'])
    expect(run.code).toBe(1)
    expect(errorLines(run.stderr)).toEqual(['paralab: --executor needs --out DIR: the job\'s folder, on a filesystem the compute nodes share'])
    const nowhere = inDir(['stats', data, ...STATS, '--executor', 'local', '--out', join(dir, 'no', 'such')])
    expect(errorLines(nowhere.stderr)).toEqual([expect.stringMatching(/^paralab: cannot write --out .*such: its folder .*no does not exist$/)])
    const other = join(dir, 'other')
    mkdirSync(other)
    writeFileSync(join(other, 'notes.txt'), 'mine')
    const taken = inDir(['stats', data, ...STATS, '--executor', 'local', '--out', other, '--force'])
    expect(taken.code).toBe(1)
    expect(errorLines(taken.stderr)).toEqual([expect.stringMatching(/is not the folder of a Paralab cluster run; choose another --out$/)])
    expect(readdirSync(other)).toEqual(['notes.txt'])
    if (process.getuid?.() === 0) return // root writes anywhere
    const locked = join(dir, 'locked')
    mkdirSync(locked, { mode: 0o500 })
    const ro = inDir(['stats', data, ...STATS, '--executor', 'local', '--out', join(locked, 'job')])
    expect(errorLines(ro.stderr)).toEqual([expect.stringMatching(/is not writable$/)])
  })
})
