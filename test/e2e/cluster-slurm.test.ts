// Cluster runs on a real Slurm (test/helpers/slurm.ts: slurmctld and two slurmd on this host):
// a folder as a job array merged into the local run's results; one task scancelled and one past
// its time limit, reported as CANCELLED and TIMEOUT with the merge still written; `jobs --json`;
// a partition sbatch refuses. Scheduling passes come every few seconds: the tests are few and whole.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { slurmMissing, startSlurm, type SlurmCluster } from '../helpers/slurm'
import { errorLines, paralab } from './paralab'
import { expectSameRun, statsFolder } from './cluster-helpers'

const missing = slurmMissing()
const STATS = ['--backend', 'serial', '--repeat', '1']

describe.skipIf(missing)('on Slurm', () => {
  let cluster: SlurmCluster
  let dir: string
  let data: string
  let slow: string
  const run = (args: string[], timeout = 180_000) => paralab(args, cluster.env, timeout)

  beforeAll(async () => {
    cluster = await startSlurm()
    dir = mkdtempSync(join(tmpdir(), 'paralab-cluster-slurm-'))
    data = statsFolder(dir)
    // A recording that takes minutes in one thread with every prefix repeated: a task that runs until stopped.
    slow = join(dir, 'slow.csv')
    expect(paralab(['generate', 'acc', slow, '--rows', '2000000', '--seed', '3']).code).toBe(0)
  }, 180_000)
  afterAll(() => {
    cluster?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('runs a folder as a job array and merges it into the local run\'s results, the bad file reported with its error', () => {
    const out = join(dir, 'array-job')
    const local = paralab(['stats', data, ...STATS, '--json'])
    const job = run(['stats', data, ...STATS, '--slurm', '--array-parallelism', '2', '--out', out, '--wait', '--json'])
    expect(job.code, job.stderr).toBe(1)
    const merged = JSON.parse(job.stdout)
    expectSameRun(merged, JSON.parse(local.stdout))
    expect(merged.results.failed).toEqual([{ path: join(data, 'c.csv'), error: expect.objectContaining({ message: expect.stringContaining('"oops" is not a number') }) }])
    expect(merged.cluster).toMatchObject({ executor: 'slurm', job_id: expect.stringMatching(/^\d+$/), merge_job_id: expect.stringMatching(/^\d+$/), failed: [2] })
    expect(merged.cluster.tasks.map((t: any) => [t.index, t.state, t.exit_code])).toEqual([[0, 'COMPLETED', 0], [1, 'COMPLETED', 0], [2, 'FAILED', 1]])
    for (const t of merged.cluster.tasks) expect(cluster.nodes).toContain(t.node)
    expect(merged.cluster.tasks[2].stderr_tail).toContain('"oops" is not a number')
    // The stderr says what the local run says, after the tasks' progress.
    expect(errorLines(job.stderr).filter((l) => !/^paralab: (submitted|task \d)/.test(l))).toEqual(errorLines(local.stderr))
    expect(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).results).toEqual(merged.results)
    expect(readFileSync(join(out, 'job.sbatch'), 'utf8')).toMatch(/#SBATCH --array=0-2%2\n/)
  })

  it('reports a scancelled task as CANCELLED and one past its time limit as TIMEOUT, and still writes the merge; jobs --json follows them', async () => {
    const out = join(dir, 'killed-job')
    const submitted = run(['stats', join(data, 'a.csv'), slow, slow, '--backend', 'serial', '--repeat', '1000', '--batches', '20', '--slurm', '--time', '1', '--out', out])
    expect(submitted.code, submitted.stderr).toBe(0)
    const id = submitted.stdout.trim()
    expect(id).toMatch(/^\d+$/)
    const jobs = async (until: (job: any) => boolean, seconds: number) => {
      const end = Date.now() + seconds * 1000
      for (;;) {
        const listed = run(['jobs', '--json'])
        expect(listed.code, listed.stderr).toBe(0)
        const job = JSON.parse(listed.stdout).jobs.find((j: any) => j.job_id === id)
        if (job && until(job)) return job
        if (Date.now() > end) throw new Error(`job ${id} did not get there in ${seconds} s: ${JSON.stringify(job)}`)
        await new Promise((r) => setTimeout(r, 1000))
      }
    }
    // Task 1 running with progress read from its folder: cancel it.
    const running = await jobs((j) => j.tasks.some((t: any) => t.index === 1 && t.state === 'RUNNING' && t.progress), 60)
    expect(running).toMatchObject({ name: 'paralab-stats', workload: 'stats', merge: false, dir: out, nodes: expect.any(Array) })
    const task = running.tasks.find((t: any) => t.index === 1)
    expect(task).toEqual({ index: 1, job_id: `${id}_1`, state: 'RUNNING', exit_code: null, node: expect.stringMatching(/^n[12]$/), elapsed_s: expect.any(Number), progress: { phase: expect.any(String), fraction: expect.any(Number), elapsed_ms: expect.any(Number) } })
    expect(run(['jobs', 'cancel', `${id}_1`]).code).toBe(0)
    // Task 2 runs on until Slurm stops it at its limit (a minute, checked every half minute).
    await jobs((j) => j.tasks.every((t: any) => ['COMPLETED', 'CANCELLED', 'TIMEOUT'].includes(t.state)), 200)
    const end = Date.now() + 60_000
    while (!existsSync(join(out, 'cluster.json')) && Date.now() < end) await new Promise((r) => setTimeout(r, 1000))
    const report = JSON.parse(readFileSync(join(out, 'cluster.json'), 'utf8'))
    expect(report.tasks.map((t: any) => [t.index, t.state])).toEqual([[0, 'COMPLETED'], [1, 'CANCELLED'], [2, 'TIMEOUT']])
    expect(report.failed).toEqual([1, 2])
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))
    expect(results.results.files.map((f: any) => f.path)).toEqual([join(data, 'a.csv')])
    expect(results.results.failed.map((f: any) => [f.path, f.error.code])).toEqual([[slow, 'cancelled'], [slow, 'cancelled']])
    expect(results.cluster.tasks[2].stderr_tail).toMatch(/DUE TO TIME LIMIT/)
    // The merge by hand says the same, exit 1 for the tasks that did not complete.
    const merge = run(['merge', out])
    expect(merge.code).toBe(1)
  }, 300_000)

  it('refuses to replace or resume a folder whose job is still queued or running, naming the job', () => {
    const out = join(dir, 'live-job')
    const submitted = run(['stats', slow, '--backend', 'serial', '--slurm', '--out', out])
    expect(submitted.code, submitted.stderr).toBe(0)
    const id = submitted.stdout.trim()
    try {
      const again = run(['stats', slow, '--backend', 'serial', '--slurm', '--out', out, '--force'])
      expect(again.code).toBe(1)
      expect(errorLines(again.stderr)).toEqual([expect.stringMatching(new RegExp(`^paralab: --out .*live-job belongs to job ${id}, which is still (PENDING|RUNNING|CONFIGURING): cancel it first \\(paralab jobs cancel ${id}\\) or choose another --out$`))])
      expect(JSON.parse(readFileSync(join(out, 'job.json'), 'utf8')).jobId).toBe(id)
    } finally {
      const record = JSON.parse(readFileSync(join(out, 'job.json'), 'utf8'))
      execFileSync('scancel', [id, record.mergeJobId], { env: cluster.env })
    }
  })

  it('shows sbatch\'s own message when it refuses a job, and leaves no folder', () => {
    const out = join(dir, 'refused-job')
    const job = run(['stats', data, ...STATS, '--slurm', '--partition', 'nosuch', '--out', out])
    expect(job.code).toBe(1)
    expect(errorLines(job.stderr)).toEqual([expect.stringMatching(/^paralab: sbatch failed: sbatch: error: .*invalid partition/i)])
    expect(existsSync(out)).toBe(false)
  })
})
