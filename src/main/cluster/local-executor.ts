// `--executor local`: the generated scripts run as local processes, for trying a job before a
// cluster is at hand. Each array task is the tasks' script run by bash with the variables Slurm
// would set, its output in the same log files; `srun` becomes a shell function that starts the
// ranks here; the merge script runs once every task has ended. What Slurm would record of each
// task (state, exit code) goes to tasks/<index>/state.json. A job that asks for GPUs on a machine
// of several has each rank fenced onto one (src/main/gpu/fence.ts), as the bench's own ranks are:
// the srun function starts rank k where only the (k mod G)-th GPU's device node is left.
import { spawn } from 'node:child_process'
import { constants } from 'node:fs'
import { mkdtemp, open, readFile, rm, type FileHandle } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiError } from '../../shared/errors'
import { jobPaths, taskPaths, writeJson, type JobRecord } from './job-folder'
import { deviceNodes, FENCE_SCRIPT, FENCED_VARIABLE, fenceableGpus, type FenceableGpus } from '../gpu/fence'

/**
 * srun for local ranks: `--ntasks=R` copies of the command, each told its rank; fails when one fails.
 * With PARALAB_SRUN_FENCE_FLAGS set (localRankGpus), rank k starts under `unshare FLAGS` with every
 * node of PARALAB_SRUN_FENCE_NODES but the (k mod G)-th of PARALAB_SRUN_FENCE_KEEP hidden by
 * FENCE_SCRIPT; the lists are lines of the environment, never text of the function.
 */
const LOCAL_SRUN = `() { local n=1; while [[ $1 == -* ]]; do case $1 in --ntasks=*) n=\${1#--ntasks=};; esac; shift; done
local pids=() i rc=0 keep=() tags=() all=()
if [[ -n \${PARALAB_SRUN_FENCE_FLAGS:-} ]]; then mapfile -t keep <<<"$PARALAB_SRUN_FENCE_KEEP"; mapfile -t tags <<<"$PARALAB_SRUN_FENCE_TAGS"; mapfile -t all <<<"$PARALAB_SRUN_FENCE_NODES"; fi
for ((i = 0; i < n; i++)); do
if ((\${#keep[@]} > 0)); then local g=$((i % \${#keep[@]})) hide=() x; for x in "\${all[@]}"; do if [[ $x != "\${keep[g]}" ]]; then hide+=("$x"); fi; done
SLURM_PROCID=$i SLURM_NTASKS=$n SLURM_LOCALID=$i ${FENCED_VARIABLE}=\${tags[g]} unshare \${PARALAB_SRUN_FENCE_FLAGS} -- sh -c "\${PARALAB_SRUN_FENCE_SCRIPT}" paralab-gpu-fence "\${hide[@]}" -- "$@" &
else SLURM_PROCID=$i SLURM_NTASKS=$n SLURM_LOCALID=$i "$@" & fi; pids+=($!); done
for i in "\${pids[@]}"; do wait "$i" || rc=$?; done; return $rc; }`

/**
 * How the ranks of a local job get GPUs: for a job asking for GPUs (`gpusPerTask` ≥ 1) on a machine
 * where several can be fenced, the srun function's environment that fences rank k onto the
 * (k mod G)-th (one GPU a rank: a process opens one); else none, and why, when GPUs were asked for.
 */
export function localRankGpus(gpusPerTask: number | undefined, opts: { env?: NodeJS.ProcessEnv; roots?: { pci?: string; nvidia?: string; dev?: string } } = {}): { env: Record<string, string>; note?: string } {
  if (!gpusPerTask) return { env: {} }
  const f: FenceableGpus = fenceableGpus(opts)
  if (!f.ok) return { env: {}, note: `the ranks are not fenced onto GPUs of their own: ${f.why}` }
  const all = deviceNodes(opts.roots?.dev)
  const lines = [...all, ...f.gpus.map((g) => g.node), ...f.gpus.map((g) => g.tag)]
  // One path a line: a node path holding a line break could not travel so (and names no device node Paralab lists).
  if (lines.some((l) => /[\n\r]/.test(l))) return { env: {}, note: 'the ranks are not fenced onto GPUs of their own: a device node path holds a line break' }
  const many = gpusPerTask > 1 ? ` (${gpusPerTask} GPUs per rank asked for: a process opens one)` : ''
  return {
    env: {
      PARALAB_SRUN_FENCE_FLAGS: f.route.flags.join(' '),
      PARALAB_SRUN_FENCE_SCRIPT: FENCE_SCRIPT,
      PARALAB_SRUN_FENCE_NODES: all.join('\n'),
      PARALAB_SRUN_FENCE_KEEP: f.gpus.map((g) => g.node).join('\n'),
      PARALAB_SRUN_FENCE_TAGS: f.gpus.map((g) => g.tag).join('\n'),
    },
    note: `each rank fenced onto one of ${f.gpus.length} GPUs (rank k on the (k mod ${f.gpus.length})-th), in ${f.route.how}${many}`,
  }
}

export interface LocalState {
  state: 'COMPLETED' | 'FAILED' | 'CANCELLED'
  exit_code: number
  signal: number
}

/**
 * A task's log, opened to append: never through a symlink, and refused at once when something
 * other than a regular file (a FIFO would block until a reader came) was put in its place.
 */
export async function openTaskLog(path: string): Promise<FileHandle> {
  const file = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644).catch((e: NodeJS.ErrnoException) => {
    throw new ApiError('io', e.code === 'ELOOP' ? `${path} is a symbolic link, not a log Paralab wrote` : `cannot open ${path}: ${e.message}`)
  })
  const s = await file.stat()
  if (!s.isFile()) {
    await file.close()
    throw new ApiError('io', `${path} is not a regular file, so it is no log Paralab wrote`)
  }
  return file
}

/** The job's scripts as Paralab generated them (submit.ts), not as the job folder holds them now. */
export interface JobScripts {
  task: string
  merge: string
}

/**
 * The scripts written into a fresh folder only this user can enter (mkdtemp: mode 0700, a name no
 * one can foresee), each created exclusively and read back to check it holds the generated text.
 */
async function privateCopies(scripts: JobScripts): Promise<{ dir: string; task: string; merge: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'paralab-local-job-'))
  try {
    const write = async (name: string, text: string) => {
      const path = join(dir, name)
      const file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
      await file.writeFile(text).finally(() => file.close())
      if ((await readFile(path, 'utf8')) !== text) throw new ApiError('io', `${path} does not hold the script Paralab wrote there`)
      return path
    }
    return { dir, task: await write('job.sbatch', scripts.task), merge: await write('merge.sbatch', scripts.merge) }
  } catch (e) {
    await rm(dir, { recursive: true, force: true })
    throw e
  }
}

function runScript(script: string, env: NodeJS.ProcessEnv, stdout: string, stderr: string, signal: AbortSignal): Promise<LocalState> {
  return (async () => {
    const out = await openTaskLog(stdout)
    const err = await openTaskLog(stderr).catch(async (e) => {
      await out.close()
      throw e
    })
    try {
      return await new Promise<LocalState>((resolve, reject) => {
        const child = spawn('bash', [script], { env, stdio: ['ignore', out.fd, err.fd] })
        const cancel = () => child.kill('SIGTERM')
        signal.addEventListener('abort', cancel, { once: true })
        child.on('error', (e) => reject(new ApiError('io', `cannot run ${script} with bash: ${e.message}`)))
        child.on('close', (code, sig) => {
          signal.removeEventListener('abort', cancel)
          if (sig) resolve({ state: 'CANCELLED', exit_code: 0, signal: 15 })
          else resolve({ state: code === 0 ? 'COMPLETED' : 'FAILED', exit_code: code ?? 1, signal: 0 })
        })
      })
    } finally {
      await out.close()
      await err.close()
    }
  })()
}

/**
 * Runs every task (at most `parallelism` at once, default one per core), then the merge script;
 * `scripts`: the text submit generated; `ranksEnv`: localRankGpus' env.
 */
export async function runLocally(
  dir: string,
  record: JobRecord,
  scripts: JobScripts,
  parallelism: number | undefined,
  signal: AbortSignal,
  onTaskEnd?: (index: number, s: LocalState) => void,
  ranksEnv: Record<string, string> = {},
): Promise<void> {
  const paths = jobPaths(dir)
  // A job id of its own, so that the ranks of one run never meet those of another; no node name,
  // so that ranks meet on this host's loopback address rather than asking Slurm for a node.
  const id = `local-${process.pid}-${Date.now()}`
  const base: NodeJS.ProcessEnv = { ...process.env, SLURM_JOB_ID: id, SLURM_ARRAY_JOB_ID: id, 'BASH_FUNC_srun%%': LOCAL_SRUN }
  // Fences come from this run's decision only, never from the environment it was started in.
  for (const k of Object.keys(base)) if (k.startsWith('PARALAB_SRUN_FENCE_')) delete base[k]
  Object.assign(base, ranksEnv)
  delete base.SLURMD_NODENAME
  const queue = [...record.tasks]
  const own = await privateCopies(scripts)
  try {
    await runAll(paths, own, record, queue, base, parallelism, signal, onTaskEnd)
  } finally {
    await rm(own.dir, { recursive: true, force: true })
  }
}

async function runAll(
  paths: ReturnType<typeof jobPaths>,
  own: { task: string; merge: string },
  record: JobRecord,
  queue: JobRecord['tasks'],
  base: NodeJS.ProcessEnv,
  parallelism: number | undefined,
  signal: AbortSignal,
  onTaskEnd?: (index: number, s: LocalState) => void,
): Promise<void> {
  const worker = async () => {
    for (let task = queue.shift(); task && !signal.aborted; task = queue.shift()) {
      const t = taskPaths(paths.task(task.index))
      const env = { ...base, ...(record.tasks.length > 1 && { SLURM_ARRAY_TASK_ID: String(task.index) }) }
      const state = await runScript(own.task, env, t.stdout, t.stderr, signal)
      await writeJson(t.state, state)
      onTaskEnd?.(task.index, state)
    }
  }
  const lanes = Math.max(1, Math.min(parallelism ?? availableParallelism(), record.tasks.length))
  await Promise.all(Array.from({ length: lanes }, worker))
  if (signal.aborted) throw new ApiError('cancelled', 'cancelled')
  const merge = await runScript(own.merge, base, paths.mergeLog, paths.mergeLog, signal)
  if (merge.state === 'CANCELLED') throw new ApiError('cancelled', 'cancelled')
}
