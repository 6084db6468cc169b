// A real Slurm cluster for the tests, without systemd: munged (as user munge), slurmctld and two
// slurmd on this host (nodes n1 and n2, each half the CPUs and memory), all in a temporary folder
// of their own with their own ports, state folder and cluster name, stopped by PID at the end.
// Client commands find it through SLURM_CONF (in `env`). With `gpus`, each node has that many
// GPUs in its gres.conf: stand-in device nodes `dev/nvidia0…` in the cluster's folder (character
// devices of NVIDIA's major, 195, and minors 0…: gres.conf takes nothing else; with no driver behind
// them, opening one says ENXIO), so that jobs can ask for GPUs (`--gpus-per-task`).
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { availableParallelism, hostname, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'

export interface SlurmCluster {
  dir: string
  /** The stand-in device nodes' folder (`nvidia0`…), with `gpus`. */
  dev?: string
  /** The environment for client commands and for `paralab` (SLURM_CONF). */
  env: NodeJS.ProcessEnv
  nodes: string[]
  stop(): void
}

const BINARIES = ['/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/sbin/munged', '/usr/bin/sbatch', '/usr/bin/squeue']

/** Why a cluster cannot be started here, or undefined when it can. */
export function slurmMissing(): string | undefined {
  const missing = BINARIES.filter((b) => !existsSync(b))
  if (missing.length) return `Slurm is not installed (${missing.join(', ')} missing; Debian: slurmctld slurmd slurm-client munge)`
  if (process.getuid?.() !== 0) return 'starting slurmctld, slurmd and munged needs root'
  return undefined
}

/** Free TCP ports, distinct. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<ReturnType<typeof createServer>>((resolve) => {
      const s = createServer()
      s.listen(0, '127.0.0.1', () => resolve(s))
    })),
  )
  const ports = servers.map((s) => (s.address() as { port: number }).port)
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
  return ports
}

function pidOf(file: string): number | undefined {
  const pid = Number(readFileSync(file, 'utf8').trim())
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

async function until(what: string, check: () => boolean, ms: number, log: () => string): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`Slurm test cluster: ${what} did not happen within ${ms / 1000} s\n${log()}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

export async function startSlurm(opts: { gpus?: number } = {}): Promise<SlurmCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'paralab-slurm-'))
  chmodSync(dir, 0o755)
  const gpus = opts.gpus ?? 0
  const dev = join(dir, 'dev')
  if (gpus) {
    mkdirSync(dev)
    for (let k = 0; k < gpus; k++) execFileSync('mknod', [join(dev, `nvidia${k}`), 'c', '195', String(k)])
    writeFileSync(join(dir, 'gres.conf'), ['AutoDetect=off', ...['n1', 'n2'].flatMap((n) => Array.from({ length: gpus }, (_, k) => `NodeName=${n} Name=gpu File=${join(dev, `nvidia${k}`)}`)), ''].join('\n'))
  }
  const gres = gpus ? ` Gres=gpu:${gpus}` : ''
  const munge = join(dir, 'munge')
  mkdirSync(munge, { mode: 0o755 })
  const ids = execFileSync('id', ['-u', 'munge'], { encoding: 'utf8' }).trim()
  chownSync(munge, Number(ids), Number(execFileSync('id', ['-g', 'munge'], { encoding: 'utf8' }).trim()))
  const socket = join(munge, 'munge.socket')
  const [ctldPort, n1Port, n2Port] = await freePorts(3)
  const host = hostname()
  const cpus = Math.max(1, Math.floor(availableParallelism() / 2))
  const memory = Math.floor(totalmem() / 2 / 2 ** 20 / 2)
  const name = `paralabtest${process.pid}`
  const conf = join(dir, 'slurm.conf')
  writeFileSync(
    conf,
    [
      `ClusterName=${name}`,
      `SlurmctldHost=${host}(127.0.0.1)`,
      `SlurmctldPort=${ctldPort}`,
      'SlurmUser=root',
      'AuthType=auth/munge',
      `AuthInfo=socket=${socket}`,
      'CredType=cred/munge',
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool-%n')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd-%n.pid')}`,
      `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'slurmd-%n.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'SchedulerType=sched/backfill',
      'AccountingStorageType=accounting_storage/none',
      'JobCompType=jobcomp/none',
      'MpiDefault=none',
      'ReturnToService=2',
      'MinJobAge=3600',
      'KillWait=2',
      'DependencyParameters=kill_invalid_depend',
      ...(gpus ? ['GresTypes=gpu'] : []),
      `NodeName=n1 NodeHostname=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${memory}${gres} Port=${n1Port} State=UNKNOWN`,
      `NodeName=n2 NodeHostname=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${memory}${gres} Port=${n2Port} State=UNKNOWN`,
      'PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP',
      '',
    ].join('\n'),
  )
  mkdirSync(join(dir, 'state'))
  const env = { ...process.env, SLURM_CONF: conf }
  const pidFiles = [join(dir, 'slurmd-n1.pid'), join(dir, 'slurmd-n2.pid'), join(dir, 'slurmctld.pid'), join(munge, 'munged.pid')]
  const log = () => ['slurmctld.log', 'slurmd-n1.log', 'slurmd-n2.log', 'munge/munged.log'].map((f) => {
    const p = join(dir, f)
    return existsSync(p) ? `--- ${f}\n${readFileSync(p, 'utf8').split('\n').slice(-15).join('\n')}` : `--- ${f}: none`
  }).join('\n')
  const stop = () => {
    for (const file of pidFiles) {
      if (!existsSync(file)) continue
      const pid = pidOf(file)
      if (pid) try { process.kill(pid, 'SIGTERM') } catch { /* already gone */ }
    }
    // Jobs' processes belong to slurmstepd, which ends with its job; give the daemons a moment.
    spawnSync('sleep', ['1'])
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const run = (cmd: string, args: string[]) => {
      const r = spawnSync(cmd, args, { env, encoding: 'utf8' })
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}\n${log()}`)
    }
    run('runuser', ['-u', 'munge', '--', '/usr/sbin/munged', `--socket=${socket}`, `--pid-file=${join(munge, 'munged.pid')}`, `--log-file=${join(munge, 'munged.log')}`, `--seed-file=${join(munge, 'munged.seed')}`])
    run('/usr/sbin/slurmctld', ['-i'])
    run('/usr/sbin/slurmd', ['-N', 'n1'])
    run('/usr/sbin/slurmd', ['-N', 'n2'])
    await until('both nodes idle', () => {
      const r = spawnSync('sinfo', ['-h', '-N', '-o', '%N %t'], { env, encoding: 'utf8', timeout: 15_000 })
      return r.status === 0 && r.stdout.trim().split('\n').filter((l) => /\bidle$/.test(l)).length === 2
    }, 60_000, log)
  } catch (e) {
    stop()
    throw e
  }
  return { dir, ...(gpus && { dev }), env, nodes: ['n1', 'n2'], stop }
}
