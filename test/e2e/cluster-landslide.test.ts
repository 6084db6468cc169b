// The landslide across Slurm tasks (test/helpers/slurm.ts: a real Slurm, two nodes on this host):
// R ranks under one srun exchange halos over TCP and give the reference md5 whatever R; a job
// checkpointing into its task folder, cancelled and submitted again by hand, resumes and ends with
// the reference md5; `--executor local` runs the same ranks here. The ranks of a task prove a key
// that the planning command wrote into the task folder (mode 0600) and that nothing readable by
// others holds, and a stranger who knows the job's id from its rendezvous file changes nothing.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { connect } from 'node:net'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { slurmMissing, startSlurm, type SlurmCluster } from '../helpers/slurm'
import { paralab } from './paralab'

const DATA = resolve(__dirname, '../../../shared/data/landslide')
const TESSINA = ['header', 'dem', 'source'].map((f) => join(DATA, `tessina_${f}.txt`))
// data/README.md: the reference program's output after 100 and 4000 steps.
const MD5_100 = 'f9ded733d6c9e13963e41ea0cc37a7d4'
const MD5_4000 = '8ed78fa13180c12b4d8aeec7ce6a362a'

const missing = slurmMissing()

/**
 * The pid of rank `rank` of the job whose folder is `out` once it has started (its node runs on this
 * host): a node process whose command line names that folder (a fresh one: no other job's) and whose
 * environment gives it that rank.
 */
async function slurmRank(out: string, rank: number, ms: number): Promise<number> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
        if (argv[0] !== process.execPath || !argv.some((a) => a.startsWith(`${out}/`) || a.startsWith(`--task-dir=${out}/`))) continue
        if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`SLURM_PROCID=${rank}`)) return Number(pid)
      } catch {
        // gone, or not ours to read
      }
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`rank ${rank} of the job in ${out} did not start within ${ms} ms`)
}

/** The task's key is this user's alone, and neither the script nor the rendezvous file holds it. */
function expectKeyKept(out: string): void {
  const key = join(out, 'tasks', '0', 'ranks.key')
  expect(statSync(key).mode & 0o777).toBe(0o600)
  const secret = readFileSync(key, 'utf8').trim()
  expect(secret).toMatch(/^[0-9a-f]{64}$/)
  for (const f of [join(out, 'job.sbatch'), join(out, 'job.json'), join(out, 'tasks', '0', 'ranks-rank0.json')]) expect(readFileSync(f, 'utf8')).not.toContain(secret)
}

describe.skipIf(missing)('the landslide in ranks on Slurm', () => {
  let cluster: SlurmCluster
  let dir: string
  const run = (args: string[], timeout = 240_000) => paralab(args, cluster.env, timeout)
  /** Resolves once Slurm says the job has ended. */
  const gone = async (job: string) => {
    for (let i = 0; i < 120; i++) {
      const state = execFileSync('scontrol', ['show', 'job', '-o', job], { env: cluster.env, encoding: 'utf8' })
      if (!/JobState=(PENDING|RUNNING|COMPLETING|CONFIGURING)/.test(state)) return
      await new Promise((r) => setTimeout(r, 1000))
    }
  }

  beforeAll(async () => {
    cluster = await startSlurm({ gpus: 4 })
    dir = mkdtempSync(join(tmpdir(), 'paralab-cluster-landslide-'))
  }, 180_000)
  afterAll(() => {
    cluster?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('fences a task Slurm granted one GPU onto it: each of 2 tasks may open its own device node and none of the others\'', () => {
    // The node's GPUs as Paralab reads them: four NVIDIA GPUs on a fake PCI bus and driver procfs,
    // their device nodes the cluster's stand-ins that gres.conf lists (the grant is Slurm's own).
    const machine = join(dir, 'gpu-machine')
    const buses = ['0000:06:00.0', '0000:07:00.0', '0000:08:00.0', '0000:09:00.0']
    buses.forEach((bus, minor) => {
      mkdirSync(join(machine, 'pci', bus), { recursive: true })
      writeFileSync(join(machine, 'pci', bus, 'class'), '0x030200\n')
      mkdirSync(join(machine, 'nvidia', bus), { recursive: true })
      writeFileSync(join(machine, 'nvidia', bus, 'information'), `Model:\t\t NVIDIA H100 80GB HBM3\nDevice Minor:\t ${minor}\nBus Location:\t ${bus}\n`)
    })
    const roots = JSON.stringify({ pci: join(machine, 'pci'), nvidia: join(machine, 'nvidia'), dev: cluster.dev })
    const out = join(dir, 'gpu-tasks.out')
    const program = resolve(__dirname, '../helpers/gpu-task-program.ts')
    const jiti = resolve(__dirname, '../../node_modules/jiti/lib/jiti-cli.mjs')
    const job = spawnSync('sbatch', ['--wait', '--nodes=1', '--ntasks=2', '--gpus-per-task=1', '--overcommit', `--output=${out}`, '--wrap', `srun --ntasks=2 --gpus-per-task=1 ${process.execPath} ${jiti} ${program} '${roots}'`], { env: cluster.env, encoding: 'utf8', timeout: 120_000 })
    expect(job.status, `${job.stderr}\n${existsSync(out) ? readFileSync(out, 'utf8') : 'no output'}`).toBe(0)
    const tasks = readFileSync(out, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).sort((a, b) => a.rank - b.rank)
    // Its own node answers as the stand-in does (no driver: ENXIO); every other one is /dev/null.
    expect(tasks).toEqual([0, 1].map((k) => ({
      rank: k,
      grant: String(k),
      fenced: `pci-0000_0${6 + k}_00_0`,
      why: null,
      reads: [0, 1, 2, 3].map((m) => (m === k ? 'ENXIO' : '')),
    })))
    // Outside the tasks every node is as it was.
    expect(() => readFileSync(join(cluster.dev!, 'nvidia3'))).toThrow(/ENXIO/)
  }, 150_000)

  it('2 ranks on two nodes and 3 ranks on two nodes give the reference md5', () => {
    // The test nodes have a core each: three ranks on two nodes overcommit them, as sbatch allows when asked.
    for (const [ntasks, every, extra] of [[2, 5, []], [3, 3, ['--sbatch-arg', '--overcommit']]] as const) {
      const out = join(dir, `ranks-${ntasks}`)
      const job = run(['landslide', ...TESSINA, '--backend', 'serial', '--steps', '100', '--exchange-every', String(every), '--slurm', '--ntasks', String(ntasks), '--nodes', '2', ...extra, '--out', out, '--wait', '--json'])
      const logs = () => ['stdout.log', 'stderr.log', 'rank-1.log', 'rank-2.log'].map((f) => { try { return f + ': ' + readFileSync(join(out, 'tasks', '0', f), 'utf8') } catch { return '' } }).join('\n')
      expect(job.code, job.stderr + logs()).toBe(0)
      const envelope = JSON.parse(job.stdout)
      expect(envelope.results.reference.md5).toBe(MD5_100)
      expect(envelope.results.ranks).toMatchObject({ size: ntasks, exchange_every: every })
      expect(readFileSync(join(out, 'job.sbatch'), 'utf8')).toContain(`srun --ntasks=${ntasks}`)
      // Rank 0 wrote the envelope; the other ranks their logs only.
      const task = readdirSync(join(out, 'tasks', '0'))
      expect(task).toContain('envelope.json')
      for (let r = 1; r < ntasks; r++) expect(task).toContain(`rank-${r}.log`)
      expectKeyKept(out)
    }
  })

  it('strangers at rank 0\'s port on the cluster network (a forged hello with the job id, the 12-byte frame) change nothing: the job ends with the reference md5', async () => {
    const out = join(dir, 'strangers')
    const submitted = run(['landslide', ...TESSINA, '--backend', 'serial', '--steps', '100', '--slurm', '--ntasks', '3', '--nodes', '2', '--sbatch-arg', '--overcommit', '--out', out])
    expect(submitted.code, submitted.stderr).toBe(0)
    const id = submitted.stdout.trim()
    // Rank 2 (a process on this host: both test nodes are) is stopped as it starts, so that rank 0 keeps listening.
    const rank2 = await slurmRank(out, 2, 120_000)
    process.kill(rank2, 'SIGSTOP')
    try {
      const file = join(out, 'tasks', '0', 'ranks-rank0.json')
      const deadline = Date.now() + 120_000
      while (!existsSync(file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      const { host, port, job } = JSON.parse(readFileSync(file, 'utf8'))
      const forged = Buffer.from(JSON.stringify({ rank: 2, job }))
      const hello = Buffer.concat([Buffer.from([forged.length, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]), forged])
      const bad = Buffer.from([0, 0, 0, 0, 3, 200, 0, 0, 0, 0, 0, 0])
      for (const bytes of [hello, bad]) {
        const closed = await new Promise<boolean>((resolve, reject) => {
          const socket = connect({ host, port }, () => socket.write(bytes))
          // Read what comes (the challenge), so that the rank's closing is seen.
          socket.resume()
          socket.once('error', reject)
          socket.once('close', () => resolve(true))
          // At once as a rule; the bound is for a busy machine.
          setTimeout(() => resolve(false), 15_000).unref()
        })
        expect(closed).toBe(true)
      }
    } finally {
      process.kill(rank2, 'SIGCONT')
    }
    await gone(id)
    await gone(String(JSON.parse(readFileSync(join(out, 'job.json'), 'utf8')).mergeJobId))
    const envelope = JSON.parse(readFileSync(join(out, 'tasks', '0', 'envelope.json'), 'utf8'))
    expect(envelope.results.reference.md5).toBe(MD5_100)
    const log = readFileSync(join(out, 'tasks', '0', 'stderr.log'), 'utf8')
    expect(log).toMatch(/paralab rank 0: closed a connection from [\d.]+:\d+: its hello is not \{ rank, job, port, nonce, proof \}/)
    expect(log).toMatch(/paralab rank 0: closed a connection from [\d.]+:\d+: a data frame of unknown element type 200/)
  }, 300_000)

  it('checkpoints into its task folder; cancelled, then submitted again by hand, it resumes and ends with the reference md5', async () => {
    const out = join(dir, 'checkpointed')
    const submitted = run(['landslide', ...TESSINA, '--backend', 'serial', '--steps', '4000', '--checkpoint-every', '500', '--slurm', '--ntasks', '2', '--nodes', '2', '--out', out])
    expect(submitted.code, submitted.stderr).toBe(0)
    const id = submitted.stdout.trim()
    const script = readFileSync(join(out, 'job.sbatch'), 'utf8')
    expect(script).toContain('#SBATCH --signal=B:USR1@60')
    expect(script).toContain('#SBATCH --requeue')
    const checkpoints = join(out, 'tasks', '0', 'checkpoints')
    const complete = () => (existsSync(checkpoints) ? readdirSync(checkpoints).filter((n) => /^step-\d+$/.test(n)) : [])
    const deadline = Date.now() + 180_000
    while (complete().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500))
    expect(complete().length).toBeGreaterThan(0)
    execFileSync('scancel', [id], { env: cluster.env })
    // The job and its merge end (the merge runs after any end), then the script goes in again by hand.
    const record = JSON.parse(readFileSync(join(out, 'job.json'), 'utf8'))
    await gone(id)
    await gone(String(record.mergeJobId))
    const again = execFileSync('sbatch', ['--parsable', '--wait', join(out, 'job.sbatch')], { env: cluster.env, encoding: 'utf8', timeout: 240_000 })
    expect(again.trim()).toMatch(/^\d+/)
    const envelope = JSON.parse(readFileSync(join(out, 'tasks', '0', 'envelope.json'), 'utf8'))
    expect(envelope.results.reference.md5).toBe(MD5_4000)
    expect(envelope.results.checkpoints.resumed_from).toBeGreaterThan(0)
  }, 420_000)
})

describe('the landslide in ranks with --executor local', () => {
  it('runs the same script\'s ranks here and gives the reference md5', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralab-cluster-landslide-local-'))
    try {
      const out = join(dir, 'local')
      const job = paralab(['landslide', ...TESSINA, '--backend', 'active', '--steps', '100', '--executor', 'local', '--ntasks', '2', '--out', out, '--json'])
      const logs = () => ['stdout.log', 'stderr.log', 'rank-1.log', 'rank-2.log'].map((f) => { try { return f + ': ' + readFileSync(join(out, 'tasks', '0', f), 'utf8') } catch { return '' } }).join('\n')
      expect(job.code, job.stderr + logs()).toBe(0)
      const envelope = JSON.parse(job.stdout)
      expect(envelope.results.reference.md5).toBe(MD5_100)
      expect(envelope.results.ranks).toMatchObject({ size: 2 })
      expectKeyKept(out)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
