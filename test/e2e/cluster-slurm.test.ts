// Cluster runs on a real Slurm (test/helpers/slurm.ts: slurmctld and two slurmd on this host):
// a folder as a job array merged into the local run's results; one task scancelled and one past
// its time limit, reported as CANCELLED and TIMEOUT with the merge still written; `jobs --json`;
// a partition sbatch refuses. Hostile names (files, folders, the dashboard's runs folder and
// columns) run as the same command on the same files with nothing executed and no #SBATCH line
// smuggled in; correlation on several files merges; `jobs cancel` refuses ids that are not Paralab's
// queued jobs; `jobs` says when slurmctld does not answer; `--wait` stops on a job Slurm can never
// start. Scheduling passes come every few seconds: the tests are few and whole.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { slurmMissing, startSlurm, type SlurmCluster } from '../helpers/slurm'
import { errorLines, paralab } from './paralab'
import { expectSameRun, hostileFolder, hostileRunsFolder, HOSTILE_NAMES, pwnedUnder, statsFolder } from './cluster-helpers'
import { connectApi } from '../helpers/api-client'
import { startServe } from '../helpers/serve'
import { hasEnded } from '../../src/shared/cluster'

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
  /** A field of `scontrol show job -o` for each task of a job. */
  const schedulerField = (id: string, field: string) => {
    const r = spawnSync('scontrol', ['show', 'job', '-o', id], { env: cluster.env, encoding: 'utf8' })
    return r.stdout.split('\n').filter(Boolean).map((l) => new RegExp(`\\b${field}=(\\S*)`).exec(l)?.[1])
  }

  it('runs hostile file names from a hostile folder as the same command on the same files; nothing executes and no #SBATCH line is smuggled in', () => {
    const hostile = hostileFolder(dir)
    const work = join(dir, "work 'q' $(touch PWNED)")
    mkdirSync(work)
    const out = join(hostileRunsFolder(dir), 'slurm-r1')
    const local = paralab(['stats', hostile, ...STATS, '--json'], {}, 120_000, work)
    expect(local.code, local.stderr).toBe(0)
    const job = paralab(['stats', hostile, ...STATS, '--slurm', '--sbatch-arg=--nice=3', '--out', out, '--wait', '--json'], cluster.env, 300_000, work)
    expect(job.code, job.stderr).toBe(0)
    const merged = JSON.parse(job.stdout)
    expectSameRun(merged, JSON.parse(local.stdout))
    expect(merged.input.files.map((f: any) => f.path).sort()).toEqual([...HOSTILE_NAMES, 'plain.csv'].map((n) => join(hostile, n)).sort())
    expect(merged.cluster.tasks.map((t: any) => t.state)).toEqual(Array(HOSTILE_NAMES.length + 1).fill('COMPLETED'))
    // The --sbatch-arg took effect on every task; the name's "#SBATCH --nice=777" did not.
    expect(schedulerField(merged.cluster.job_id, 'Nice')).toEqual(Array(HOSTILE_NAMES.length + 1).fill('3'))
    // Slurm holds the folder whole in the job's comment, as `jobs` reads it back.
    const listed = run(['jobs', '--json'])
    expect(JSON.parse(listed.stdout).jobs.find((j: any) => j.job_id === merged.cluster.job_id)?.dir).toBe(out)
    expect(readFileSync(join(out, 'job.sbatch'), 'utf8')).not.toMatch(/^#SBATCH --nice=777/m)
    expect(pwnedUnder(dir)).toEqual([])
  }, 360_000)

  it('submits dashboard runs with hostile data file names and columns into a runs folder with spaces and %', async () => {
    const data = join(dir, 'dashboard-data')
    const sub = join(data, 'sub')
    mkdirSync(sub, { recursive: true })
    const column = "acc y;$(touch PWNED) 'q' %j"
    const rows = Array.from({ length: 200 }, (_, i) => `${(i * 7) % 13},${(i * 5) % 11}`)
    const files = [join(sub, 'evil\ntouch PWNED\n#.csv'), join(sub, '$(touch PWNED) `touch PWNED`.csv')]
    for (const f of files) writeFileSync(f, `acc_x,${column}\n${rows.join('\n')}\n`)
    const runs = join(hostileRunsFolder(dir), 'dashboard runs')
    const serve = await startServe(['--data', data], { ...cluster.env, PARALAB_CLUSTER_RUNS: runs, PARALAB_HISTORY: join(dir, 'history'), PARALAB_EXAMPLES: join(dir, 'examples') })
    const api = await connectApi(serve)
    try {
      const params = { files, columns: ['acc_x', column], backends: ['serial'], repeat: 1 }
      const submitted = await api.call<{ jobId: string; dir: string }>('submitClusterJob', 'stats', params, {})
      expect(submitted.dir.startsWith(runs)).toBe(true)
      const done = await api.event((e) => e.type === 'done' && e.jobId === `cluster-${submitted.jobId}`, 240_000)
      const local = paralab(['stats', ...STATS, '--columns', `acc_x,${column}`, '--json', '--', ...files])
      expectSameRun(done.envelope, JSON.parse(local.stdout))
      // A column named like a command: the task looks for that very column, and says so.
      const odd = await api.call<{ jobId: string; dir: string }>('submitClusterJob', 'stats', { ...params, files: files.slice(0, 1), columns: ['acc_x\ntouch PWNED\n#'] }, {})
      const end = Date.now() + 240_000
      for (;;) {
        const run = (await api.call<any[]>('listClusterJobs')).find((r) => r.job_id === odd.jobId)
        if (run?.merge_state && hasEnded(run.merge_state)) break
        if (Date.now() > end) throw new Error(`run ${odd.jobId} did not end: ${JSON.stringify(run)}`)
        await new Promise((r) => setTimeout(r, 1000))
      }
      const error = JSON.parse(readFileSync(join(odd.dir, 'tasks', '0', 'error.json'), 'utf8'))
      expect(error.message).toContain('no column "acc_x\\ntouch PWNED\\n#"')
    } finally {
      api.close()
      await serve.stop()
    }
    expect(pwnedUnder(dir)).toEqual([])
  }, 600_000)

  it('merges correlation on several files, one result set per file', () => {
    const cw = join(dir, 'cw')
    mkdirSync(cw)
    expect(paralab(['generate', 'walks', join(cw, 'w1.csv'), '--series', '8', '--length', '200']).code).toBe(0)
    expect(paralab(['generate', 'walks', join(cw, 'w2.csv'), '--series', '8', '--length', '200', '--seed', '2']).code).toBe(0)
    const out = join(dir, 'c1')
    const job = run(['correlation', cw, '--slurm', '--out', out, '--wait', '--json'])
    expect(job.code, job.stderr).toBe(0)
    expect(JSON.parse(job.stdout).runs.map((r: any) => r.params.files)).toEqual([[join(cw, 'w1.csv')], [join(cw, 'w2.csv')]])
    for (const i of [0, 1]) expect(existsSync(join(out, 'runs', String(i), 'results.json'))).toBe(true)
  })

  it('cancels only Paralab\'s queued jobs: an unknown id, another program\'s job and an ended job are refused, saying why', () => {
    const other = spawnSync('sbatch', ['--parsable', '--hold', '--wrap', 'sleep 60'], { env: cluster.env, encoding: 'utf8' })
    const otherId = other.stdout.trim()
    expect(otherId).toMatch(/^\d+$/)
    try {
      for (const [id, why] of [['99999999', /^paralab: job 99999999 is not one of your Paralab jobs in Slurm's queue/], [otherId, new RegExp(`^paralab: job ${otherId} is not one of your Paralab jobs`)]] as const) {
        const r = run(['jobs', 'cancel', id])
        expect(r.code).toBe(1)
        expect(errorLines(r.stderr)).toEqual([expect.stringMatching(why)])
      }
      expect(schedulerField(otherId, 'JobState')).toEqual(['PENDING'])
    } finally {
      spawnSync('scancel', [otherId], { env: cluster.env })
    }
    const ended = JSON.parse(readFileSync(join(dir, 'array-job', 'job.json'), 'utf8')).jobId
    const r = run(['jobs', 'cancel', ended])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: job ${ended} has already ended (COMPLETED, FAILED); nothing was cancelled`])
  })

  it('says so when slurmctld does not answer, rather than that the queue is empty', () => {
    // The same cluster's configuration, with a controller port where nothing listens.
    const conf = join(dir, 'dead-slurm.conf')
    writeFileSync(conf, readFileSync(cluster.env.SLURM_CONF!, 'utf8').replace(/^SlurmctldPort=\d+$/m, 'SlurmctldPort=9'))
    const r = paralab(['jobs'], { ...cluster.env, SLURM_CONF: conf }, 60_000)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^paralab: squeue could not list the jobs: .*slurm_load_jobs.*\(is slurmctld running\?\)$/)])
  })

  it('stops waiting on a job Slurm can never start, saying why, and says why a task is pending', () => {
    const out = join(dir, 'never-job')
    const job = run(['stats', join(data, 'a.csv'), ...STATS, '--slurm', '--nodes', '3', '--out', out, '--wait'], 120_000)
    const id = JSON.parse(readFileSync(join(out, 'job.json'), 'utf8')).jobId
    try {
      expect(job.code).toBe(1)
      const lines = errorLines(job.stderr)
      expect(lines).toContain(`paralab: task 0 (${join(data, 'a.csv')}) PENDING (PartitionConfig)`)
      expect(lines.at(-1)).toBe(`paralab: job ${id} can never start: Slurm keeps it pending with reason PartitionConfig: it asks for more than its partition has or allows (nodes, CPUs, memory or GPUs). It stays in the queue until cancelled: paralab jobs cancel ${id}`)
    } finally {
      expect(run(['jobs', 'cancel', id]).code).toBe(0)
    }
    // A job that needs a node that is down: Slurm names the node, and the wait stops.
    const scontrol = (...args: string[]) => expect(spawnSync('scontrol', args, { env: cluster.env, encoding: 'utf8' }).status).toBe(0)
    scontrol('update', 'nodename=n2', 'state=down', 'reason=paralab-test')
    const downOut = join(dir, 'down-job')
    try {
      const down = run(['stats', join(data, 'a.csv'), ...STATS, '--slurm', '--sbatch-arg=--nodelist=n2', '--out', downOut, '--wait'], 120_000)
      expect(down.code).toBe(1)
      expect(errorLines(down.stderr).at(-1)).toMatch(/^paralab: job \d+ can never start: Slurm keeps it pending with reason ReqNodeNotAvail, UnavailableNodes:n2: nodes it needs are down, drained or not responding\./)
    } finally {
      run(['jobs', 'cancel', JSON.parse(readFileSync(join(downOut, 'job.json'), 'utf8')).jobId])
      scontrol('update', 'nodename=n2', 'state=resume')
    }
  })
})
