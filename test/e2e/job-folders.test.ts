// Job folders as an attacker or a careless user leaves them, with real `--executor local` runs and
// real `paralab merge` runs of the built CLI: a job folder is a shared folder, so every file read
// back from it is a regular file read up to a bound and checked against job.json (workload, task
// index, input files); Paralab deletes only what its own records say it wrote; a checkpointing run
// started again with the same command resumes, and one of other parameters is refused naming them.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { errorLines, paralab } from './paralab'
import { statsFolder } from './cluster-helpers'

vi.setConfig({ testTimeout: 120_000 })

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'paralab-job-folders-')))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const STATS = ['--backend', 'serial', '--repeat', '1']
let data: string
/** A finished two-task Statistics job (a.csv, b.csv), copied before each attack. */
let statsJob: string
/** A finished two-task Correlation job: each file keeps its own result set in runs/<index>/. */
let walksJob: string

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'))
const writeJsonFile = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2))
let copies = 0
/** A copy of a finished job to attack. */
const copyOf = (job: string) => {
  const copy = join(dir, `copy-${++copies}`)
  cpSync(job, copy, { recursive: true })
  return copy
}
const mkfifo = (path: string) => {
  rmSync(path, { force: true })
  execFileSync('mkfifo', [path])
}
/** `paralab merge DIR` with a bound: a merge that hangs is killed (exit code null). */
const merge = (job: string, args: string[] = []) => paralab(['merge', job, ...args], {}, 30_000)

beforeAll(() => {
  data = statsFolder(dir)
  statsJob = join(dir, 'stats-job')
  const run = paralab(['stats', join(data, 'a.csv'), join(data, 'b.csv'), ...STATS, '--executor', 'local', '--out', statsJob, '--json'])
  expect(run.code, run.stderr).toBe(0)
  const walks = join(dir, 'walks')
  mkdirSync(walks)
  for (const [name, seed] of [['w1.csv', 1], ['w2.csv', 2]] as const)
    expect(paralab(['generate', 'walks', join(walks, name), '--series', '8', '--length', '200', '--seed', String(seed)]).code).toBe(0)
  walksJob = join(dir, 'walks-job')
  const walked = paralab(['correlation', walks, '--executor', 'local', '--out', walksJob])
  expect(walked.code, walked.stderr).toBe(0)
}, 180_000)

describe('what Paralab deletes in a job folder', () => {
  it('--force replaces only the earlier run\'s own files, and a merge leaves a user\'s files beside the results', () => {
    const proj = copyOf(statsJob)
    // A user's files beside the job's.
    mkdirSync(join(proj, 'src'))
    writeFileSync(join(proj, 'src', 'main.c'), 'int main(void) { return 0; }\n')
    writeFileSync(join(proj, 'notes.csv'), 'mine\n')
    writeFileSync(join(proj, 'figure.png'), 'mine')
    writeFileSync(join(proj, 'README'), 'mine')
    const again = paralab(['merge', proj])
    expect(again.code, again.stderr).toBe(0)
    for (const f of ['notes.csv', 'figure.png', 'README', 'src/main.c']) expect(existsSync(join(proj, f)), f).toBe(true)

    const forced = paralab(['stats', join(data, 'b.csv'), ...STATS, '--executor', 'local', '--out', proj, '--force', '--json'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(JSON.parse(forced.stdout).cluster.tasks.map((t: { files: string[] }) => t.files)).toEqual([[join(data, 'b.csv')]])
    expect(readFileSync(join(proj, 'src', 'main.c'), 'utf8')).toBe('int main(void) { return 0; }\n')
    for (const f of ['notes.csv', 'figure.png', 'README']) expect(readFileSync(join(proj, f), 'utf8')).toMatch(/^mine/)
    // The earlier run's second task is gone with the rest of what it wrote.
    expect(readdirSync(join(proj, 'tasks'))).toEqual(['0'])
    expect(json(join(proj, 'cluster.json')).outputs).toContain('results.json')
  })

  it('a merge does not replace a file of a result file\'s name that no earlier merge wrote, and says which', () => {
    const job = copyOf(statsJob)
    const report = json(join(job, 'cluster.json'))
    writeJsonFile(join(job, 'cluster.json'), { ...report, outputs: report.outputs.filter((n: string) => n !== 'files.csv') })
    writeFileSync(join(job, 'files.csv'), 'mine\n')
    const run = merge(job)
    expect(run.code).toBe(1)
    expect(errorLines(run.stderr)).toEqual([`paralab: ${join(job, 'files.csv')} is not a file that an earlier merge wrote (its cluster.json does not list it), so the merge will not replace it: move it out of the job folder and merge again`])
    expect(readFileSync(join(job, 'files.csv'), 'utf8')).toBe('mine\n')
  })

  it('a folder whose job.json cannot be read is not emptied by --force', () => {
    const job = copyOf(statsJob)
    writeFileSync(join(job, 'job.json'), '{"workload": "stats", "tasks": [')
    const run = paralab(['stats', join(data, 'a.csv'), ...STATS, '--executor', 'local', '--out', job, '--force'])
    expect(run.code).toBe(1)
    expect(errorLines(run.stderr)).toEqual([expect.stringMatching(/^paralab: --out .* holds a job\.json that cannot be read, so Paralab cannot tell which files there it wrote \(.*job\.json is not valid JSON/)])
    expect(readdirSync(join(job, 'tasks')).sort()).toEqual(['0', '1'])
  })
})

describe('a checkpointing run started again into its folder', () => {
  let graph: string
  const args = () => ['paths', graph, '--backend', 'workers-simd', '--block', '32', '--checkpoint-every', '3', '--executor', 'local']
  beforeAll(() => {
    graph = join(dir, 'graph.bin')
    expect(paralab(['generate', 'graph', graph, '--vertices', '203', '--edges', '3000', '--seed', '8']).code).toBe(0)
  })

  it('with the same command resumes from its newest checkpoint, saying from which round, and gives the uninterrupted run\'s distances', () => {
    const out = join(dir, 'paths-job')
    const first = paralab([...args(), '--out', out, '--json'])
    expect(first.code, first.stderr).toBe(0)
    const whole = JSON.parse(first.stdout)
    const ck = join(out, 'tasks', '0', 'checkpoints')
    expect(readdirSync(ck).filter((n) => !n.startsWith('.')).sort()).toEqual(['round-0000003', 'round-0000006'])
    // Cancelled after round 3 (as scancel or a lost node leaves it): the later checkpoint and the outcome never came.
    rmSync(join(ck, 'round-0000006'), { recursive: true })
    for (const f of ['envelope.json', 'exit.json', 'state.json']) rmSync(join(out, 'tasks', '0', f))
    const resumed = paralab([...args(), '--out', out, '--json'])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(errorLines(resumed.stderr)[0]).toBe(`paralab: resuming the earlier run in ${out}: task 0 from round 3 (tasks/0/checkpoints/round-0000003)`)
    const env = JSON.parse(resumed.stdout)
    expect(env.results.graphs[0].checkpoints).toMatchObject({ resumed_from: 3, last: 6 })
    expect(env.results.graphs[0].checksum).toMatch(/\S/)
    expect(env.results.graphs[0].checksum).toBe(whole.results.graphs[0].checksum)

    // Other parameters: refused, naming what differs, the folder as it was.
    const before = readdirSync(ck).sort()
    const other = paralab(['paths', graph, '--backend', 'workers-simd', '--block', '32', '--checkpoint-every', '2', '--executor', 'local', '--out', out])
    expect(other.code).toBe(1)
    expect(errorLines(other.stderr)).toEqual([`paralab: --out ${out} holds an earlier cluster run of other parameters (--checkpoint-every 3, now 2): give the same command to resume it, --force to replace it, or another --out`])
    expect(readdirSync(ck).sort()).toEqual(before)

    // --force replaces it, and says which checkpoints it deleted.
    const forced = paralab(['paths', graph, '--backend', 'workers-simd', '--block', '32', '--checkpoint-every', '2', '--executor', 'local', '--out', out, '--force', '--json'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(errorLines(forced.stderr)[0]).toBe('paralab: --force deleted the earlier run\'s checkpoints: tasks/0/checkpoints (the newest at round 6)')
    expect(JSON.parse(forced.stdout).results.graphs[0].checkpoints).toMatchObject({ resumed_from: 0 })
  })

  it('a run that keeps no checkpoints is refused as before: --force replaces it', () => {
    const run = paralab(['stats', join(data, 'a.csv'), join(data, 'b.csv'), ...STATS, '--executor', 'local', '--out', copyOf(statsJob)])
    expect(run.code).toBe(1)
    expect(errorLines(run.stderr)).toEqual([expect.stringMatching(/holds an earlier cluster run of the same command, which keeps no checkpoints to resume from \(use --force to replace it\)$/)])
  })
})

describe('task indexes and folders in a job folder', () => {
  it('a task index that is not its position is refused before anything is read, removed or written', () => {
    for (const [i, job] of [copyOf(walksJob), copyOf(statsJob)].entries()) {
      // tasks/<index> and runs/<index> of this index are the victim's folder.
      const victim = join(dir, `victimdir-${i}`)
      mkdirSync(victim)
      writeFileSync(join(victim, 'keep.txt'), 'mine')
      const record = json(join(job, 'job.json'))
      record.tasks[1].index = `../../victimdir-${i}`
      writeJsonFile(join(job, 'job.json'), record)
      const run = merge(job)
      expect(run.code).toBe(1)
      expect(errorLines(run.stderr)).toEqual([`paralab: ${join(job, 'job.json')}: tasks[1].index must be 1 (tasks are numbered in order), got "../../victimdir-${i}"`])
      expect(readdirSync(victim)).toEqual(['keep.txt'])
    }
  })

  it('a link in place of runs/ or of a task\'s folder is not followed', () => {
    const outside = join(dir, 'outside-runs')
    mkdirSync(join(outside, '0'), { recursive: true })
    writeFileSync(join(outside, '0', 'keep.txt'), 'mine')
    const job = copyOf(walksJob)
    rmSync(join(job, 'runs'), { recursive: true })
    symlinkSync(outside, join(job, 'runs'))
    const run = merge(job)
    expect(run.code).toBe(1)
    expect(errorLines(run.stderr)).toEqual([`paralab: ${join(job, 'runs')} is a symbolic link: the merge writes only inside the job folder`])
    expect(readdirSync(join(outside, '0'))).toEqual(['keep.txt'])

    // A task folder linked to another job's: that task failed, its link named.
    const linked = copyOf(statsJob)
    rmSync(join(linked, 'tasks', '1'), { recursive: true })
    symlinkSync(join(statsJob, 'tasks', '1'), join(linked, 'tasks', '1'))
    const merged = merge(linked, ['--json'])
    expect(merged.code).toBe(1)
    const task = JSON.parse(merged.stdout).cluster.tasks[1]
    expect(task).toMatchObject({ state: 'FAILED', error: { message: `task 1's outcome is unreadable: ${join(linked, 'tasks', '1')} is a symbolic link: a task's folder is a folder inside the job folder` } })
  })

  it('correlation on several files merges each file\'s result set into runs/<index>/', () => {
    expect(readdirSync(join(walksJob, 'runs')).sort()).toEqual(['0', '1'])
    expect(json(join(walksJob, 'cluster.json')).tasks.map((t: { run: string }) => t.run)).toEqual(['runs/0', 'runs/1'])
  })
})

describe('files read back from a job folder', () => {
  it('a FIFO as a task\'s envelope, exit record, log or as job.json does not hang the merge', () => {
    const job = copyOf(statsJob)
    mkfifo(join(job, 'tasks', '0', 'envelope.json'))
    mkfifo(join(job, 'tasks', '0', 'stderr.log'))
    const run = merge(job, ['--json'])
    expect(run.code, run.stderr).toBe(1)
    const tasks = JSON.parse(run.stdout).cluster.tasks
    expect(tasks[0]).toMatchObject({ state: 'FAILED', error: { message: `task 0's outcome is unreadable: ${join(job, 'tasks', '0', 'envelope.json')} is a named pipe (FIFO), not a file Paralab wrote` } })
    expect(tasks[0].stderr_tail).toBe(`(${join(job, 'tasks', '0', 'stderr.log')} is a named pipe (FIFO), not a file Paralab wrote)`)
    // With task 1's exit record a FIFO too, no task is left to merge: each is named.
    mkfifo(join(job, 'tasks', '1', 'exit.json'))
    const none = merge(job)
    expect(none.code).toBe(1)
    expect(errorLines(none.stderr)).toEqual([expect.stringMatching(/^paralab: no task of the job in .* left a result \(task 0 FAILED: .*envelope\.json is a named pipe \(FIFO\).*; task 1 FAILED: .*exit\.json is a named pipe \(FIFO\), not a file Paralab wrote\)$/)])

    const record = copyOf(statsJob)
    mkfifo(join(record, 'job.json'))
    const refused = merge(record)
    expect(refused.code).toBe(1)
    expect(errorLines(refused.stderr)).toEqual([`paralab: ${record} is not the folder of a Paralab cluster run: ${join(record, 'job.json')} is a named pipe (FIFO), not a file Paralab wrote`])
  })

  it('an envelope copied over another task\'s is refused naming both; the other task\'s file is reported once', () => {
    const job = copyOf(statsJob)
    cpSync(join(job, 'tasks', '1', 'envelope.json'), join(job, 'tasks', '0', 'envelope.json'))
    const run = merge(job, ['--json'])
    expect(run.code).toBe(1)
    const merged = JSON.parse(run.stdout)
    expect(merged.cluster.tasks[0]).toMatchObject({
      state: 'FAILED',
      error: { message: `task 0's outcome is unreadable: ${join(job, 'tasks', '0', 'envelope.json')} is the envelope of a run over ${join(data, 'b.csv')}, task 1's file, not of task 0 (${join(data, 'a.csv')}): was it copied from tasks/1?` },
    })
    expect(merged.input.files.filter((f: { path: string }) => f.path === join(data, 'b.csv'))).toHaveLength(1)
    expect(merged.cluster.failed).toEqual([0])
  })

  it('a truncated envelope makes its task failed, with the reason, never COMPLETED', () => {
    const job = copyOf(statsJob)
    const text = readFileSync(join(job, 'tasks', '1', 'envelope.json'), 'utf8')
    writeFileSync(join(job, 'tasks', '1', 'envelope.json'), text.slice(0, text.length >> 1))
    const run = merge(job, ['--json'])
    expect(run.code).toBe(1)
    const task = JSON.parse(run.stdout).cluster.tasks[1]
    expect(task.state).toBe('FAILED')
    expect(task.error.message).toMatch(new RegExp(`^task 1's outcome is unreadable: ${join(job, 'tasks', '1', 'envelope.json')} is not valid JSON \\(.*\\); was it truncated or edited\\?$`))
    expect(errorLines(run.stderr).join('\n')).not.toMatch(/ended COMPLETED/)
  })

  it('malformed job.json and envelopes are refused naming the file and the field, never with a TypeError', () => {
    const cases: [string, (r: any) => void, string][] = [
      ['job.json', (r) => (r.tasks[0].files = 5), 'tasks[0].files must be a list of file names, got 5'],
      ['job.json', (r) => (r.tasks = { 0: 1 }), 'tasks must be a non-empty list, got {"0":1}'],
      ['job.json', (r) => (r.executor = 'ssh'), 'executor must be "slurm" or "local", got "ssh"'],
      ['job.json', (r) => (r.cwd = 'relative'), 'cwd must be an absolute folder, got "relative"'],
      ['job.json', (r) => (r.chartSize = { scale: 1e9 }), 'chartSize.scale must be a number in 0.5…8, got 1000000000'],
      ['job.json', (r) => (r.jobId = '1; rm -rf ~'), 'jobId must be a Slurm job id, got "1; rm -rf ~"'],
    ]
    for (const [file, spoil, message] of cases) {
      const job = copyOf(statsJob)
      const record = json(join(job, file))
      spoil(record)
      writeJsonFile(join(job, file), record)
      const run = merge(job)
      expect(run.code).toBe(1)
      expect(errorLines(run.stderr)).toEqual([`paralab: ${join(job, file)}: ${message}`])
    }
    for (const [spoil, message] of [
      [(e: any) => (e.input.files = null), 'input.files must be a list of files, got null'],
      [(e: any) => (e.input.files = [{ path: 3 }]), 'input.files[0] must be a file ({ path, bytes, modified, format, sha256 }), got {"path":3}'],
      [(e: any) => (e.input.files = [{ path: '/x', bytes: 1, modified: '', format: 7 }]), 'input.files[0] must be a file ({ path, bytes, modified, format, sha256 }), got {"path":"/x","bytes":1,"modified":"","format":7}'],
      [(e: any) => (e.input.files = [{ path: '/x', bytes: 1, modified: '', sha256: 'X' }]), 'input.files[0] must be a file ({ path, bytes, modified, format, sha256 }), got {"path":"/x","bytes":1,"modified":"","sha256":"X"}'],
      [(e: any) => (e.results = 'x'), 'results must be an object, got "x"'],
      [(e: any) => (e.timings = []), 'timings must be an object, got []'],
    ] as const) {
      const job = copyOf(statsJob)
      const path = join(job, 'tasks', '1', 'envelope.json')
      const envelope = json(path)
      spoil(envelope)
      writeJsonFile(path, envelope)
      const run = merge(job, ['--json'])
      expect(run.code).toBe(1)
      expect(run.stderr).not.toMatch(/TypeError|is not iterable|of undefined|of null/)
      expect(JSON.parse(run.stdout).cluster.tasks[1].error.message).toBe(`task 1's outcome is unreadable: ${path}: ${message}`)
    }
  })

  it('an envelope of another workload is refused, even as a single task\'s', () => {
    const job = copyOf(statsJob)
    const record = json(join(job, 'job.json'))
    record.tasks = [record.tasks[0]]
    writeJsonFile(join(job, 'job.json'), record)
    const path = join(job, 'tasks', '0', 'envelope.json')
    writeJsonFile(path, { ...json(path), workload: 'correlation' })
    const run = merge(job)
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(errorLines(run.stderr)).toEqual([expect.stringContaining(`${path} is the envelope of a "correlation" run, but the job in job.json runs stats`)])
  })

  it('a job.json of 200 000 tasks is refused at once', () => {
    const job = copyOf(statsJob)
    const record = json(join(job, 'job.json'))
    record.tasks = Array.from({ length: 200_000 }, (_, index) => ({ index, files: [join(data, 'a.csv')] }))
    writeFileSync(join(job, 'job.json'), JSON.stringify(record))
    const run = merge(job)
    expect(run.code).toBe(1)
    expect(errorLines(run.stderr)).toEqual([`paralab: ${join(job, 'job.json')}: tasks lists 200000 tasks, more than the 10000 a job may have`])
  })
})
