// A new cluster run's folder (`--out DIR`), and what becomes of an earlier run found there. Paralab
// deletes only what its own records say it wrote: the job's files, the folders of the tasks that
// job.json lists, the runs of those tasks and the result files that cluster.json lists; anything
// else in DIR (a user's sources, notes, data) is left as it is.
//   - the same command and parameters again, of a run that checkpoints: the run resumes; each
//     task's checkpoints are kept and named with the step or round it resumes from;
//   - other parameters: refused, naming what differs (`--force` replaces the earlier run);
//   - `--force`: the earlier run's files are deleted, its checkpoints too, and the deleted
//     checkpoints are named.
import { constants } from 'node:fs'
import { access, lstat, mkdir, readdir, stat } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { ApiError } from '../../shared/errors'
import { listManaged, removeManaged, refuseSharedFolder } from '../io/managed-folder'
import { jobPaths, readJobRecord, type JobRecord } from './job-folder'
import { readClusterReport } from './cluster-report'
import { onPath } from './slurm-command'
import { jobTasks } from './slurm-jobs'
import { hasEnded } from '../../shared/cluster'

/** What makes two runs the same run: resuming one as the other must compute the same thing. */
export interface RunIdentity {
  workload: string
  commandWords: string[]
  cwd: string
  taskFiles: string[][]
  flags: string[]
}

export interface PreparedFolder {
  dir: string
  /** What became of an earlier run in the folder, for the user (one line each). */
  notes: string[]
}

/** Files of the job's own at the top of its folder (job.json last: it says what the rest are). */
const JOB_FILES = ['job.sbatch', 'merge.sbatch', 'merge.log', 'cluster.json', '.dashboard-history', 'job.json']
/** A task's checkpoints, in its folder. */
const CHECKPOINTS = 'checkpoints'
const CHECKPOINT_NAME = /^([a-z]+)-(\d+)$/

/**
 * Makes DIR ready for a new job: created if absent; the folder of an earlier run resumed or (with
 * `force`) replaced; any other non-empty folder refused, as is a folder that cannot be written.
 */
export async function prepareJobFolder(dir: string, run: RunIdentity, opts: { force: boolean; checkpoints: boolean }): Promise<PreparedFolder> {
  const target = resolve(dir)
  // Its scripts and records are run and believed: no other user may be able to replace them.
  await refuseSharedFolder(target, '--out')
  const existing = await stat(target).catch(() => null)
  const notes: string[] = []
  if (existing) {
    if (!existing.isDirectory()) throw new ApiError('io', `--out ${dir} is a file, not a folder`)
    const entries = await readdir(target)
    if (!entries.includes('job.json')) {
      if (entries.length) throw new ApiError('io', `--out ${dir} exists and is not the folder of a Paralab cluster run; choose another --out`)
    } else {
      const earlier = await readJobRecord(target).catch((e: unknown) => {
        throw new ApiError('io', `--out ${dir} holds a job.json that cannot be read, so Paralab cannot tell which files there it wrote (${ApiError.from(e).message}); remove them by hand or choose another --out`)
      })
      await refuseIfQueued(dir, earlier)
      const checkpoints = await checkpointsOf(target, earlier)
      if (opts.force) {
        await removeJobFiles(target, earlier, false)
        if (checkpoints.length) notes.push(`--force deleted the earlier run's checkpoints: ${checkpoints.map((c) => `${relative(target, dirname(c.path))} (the newest at ${c.unit} ${c.at})`).join(', ')}`)
      } else {
        const differs = differences(earlier, run)
        if (differs.length) throw new ApiError('io', `--out ${dir} holds an earlier cluster run of other parameters (${differs.join('; ')}): give the same command to resume it, --force to replace it, or another --out`)
        if (!opts.checkpoints) throw new ApiError('io', `--out ${dir} holds an earlier cluster run of the same command, which keeps no checkpoints to resume from (use --force to replace it)`)
        await removeJobFiles(target, earlier, true)
        notes.push(
          checkpoints.length
            ? `resuming the earlier run in ${dir}: ${checkpoints.map((c) => `task ${c.task} from ${c.unit} ${c.at} (${relative(target, c.path)})`).join(', ')}`
            : `resuming the earlier run in ${dir}: it left no checkpoint in its task folders, so its tasks start from the beginning (or from --checkpoint-dir's newest checkpoint)`,
        )
      }
    }
  } else {
    const parent = await stat(dirname(target)).catch(() => null)
    if (!parent?.isDirectory()) throw new ApiError('io', `cannot write --out ${dir}: its folder ${dirname(target)} does not exist`)
  }
  await access(existing ? target : dirname(target), constants.W_OK).catch(() => {
    throw new ApiError('io', `cannot write --out ${dir}: ${existing ? 'the folder' : `its folder ${dirname(target)}`} is not writable`)
  })
  await mkdir(join(target, 'tasks'), { recursive: true, mode: 0o755 })
  return { dir: target, notes }
}

/** An earlier job still queued or running would write into the folder alongside the new one. */
async function refuseIfQueued(dir: string, earlier: JobRecord): Promise<void> {
  if (earlier.executor !== 'slurm' || !(await onPath('scontrol'))) return
  for (const id of [earlier.jobId, earlier.mergeJobId]) {
    if (!id) continue
    const live = ((await jobTasks(id).catch(() => undefined)) ?? []).find((t) => !hasEnded(t.state))
    if (live) throw new ApiError('io', `--out ${dir} belongs to job ${id}, which is still ${live.state}: cancel it first (paralab jobs cancel ${id}) or choose another --out`)
  }
}

/** `--flag value` pairs of a command's flags (a flag without a value stands alone). */
function flagPairs(flags: string[]): Map<string, string> {
  const pairs = new Map<string, string>()
  for (let i = 0; i < flags.length; i++) {
    // Flags are recorded as `--name=value`; older records kept `--name value` as two words.
    const eq = flags[i].indexOf('=')
    if (flags[i].startsWith('--') && eq > 0) {
      pairs.set(flags[i].slice(0, eq), flags[i].slice(eq + 1))
      continue
    }
    const next = flags[i + 1]
    if (next !== undefined && !next.startsWith('--')) pairs.set(flags[i], next), i++
    else pairs.set(flags[i], '')
  }
  return pairs
}

/** What differs between the earlier run and this one, in words ([] when they are the same run). */
export function differences(earlier: JobRecord, run: RunIdentity): string[] {
  const out: string[] = []
  if (earlier.workload !== run.workload) out.push(`workload ${earlier.workload}, now ${run.workload}`)
  if (!earlier.flags || !earlier.commandWords) return [...out, 'its job.json, of an earlier Paralab, does not record its parameters']
  if (earlier.commandWords.join(' ') !== run.commandWords.join(' ')) out.push(`command paralab ${earlier.commandWords.join(' ')}, now paralab ${run.commandWords.join(' ')}`)
  if (earlier.cwd !== run.cwd) out.push(`started in ${earlier.cwd}, now in ${run.cwd}`)
  if (earlier.tasks.length !== run.taskFiles.length) out.push(`${earlier.tasks.length} task(s), now ${run.taskFiles.length}`)
  else
    for (const t of earlier.tasks)
      if (t.files.join('\n') !== run.taskFiles[t.index].join('\n')) {
        out.push(`task ${t.index} read ${t.files.join(', ') || 'no file'}, now ${run.taskFiles[t.index].join(', ') || 'no file'}`)
        break
      }
  const [was, now] = [flagPairs(earlier.flags), flagPairs(run.flags)]
  for (const flag of new Set([...was.keys(), ...now.keys()])) {
    const [a, b] = [was.get(flag), now.get(flag)]
    if (a === b) continue
    const word = (v: string | undefined) => (v === undefined ? 'not given' : v === '' ? 'given' : v)
    out.push(`${flag} ${word(a)}, now ${word(b)}`)
  }
  return out
}

interface FoundCheckpoint {
  task: number
  path: string
  unit: string
  at: number
}

/** The newest checkpoint in each task folder of the earlier run (folders named `<unit>-<number>`). */
async function checkpointsOf(dir: string, earlier: JobRecord): Promise<FoundCheckpoint[]> {
  const found: FoundCheckpoint[] = []
  for (const t of earlier.tasks) {
    const folder = join(jobPaths(dir).task(t.index), CHECKPOINTS)
    // Never through a link at tasks/, tasks/<index> or checkpoints/.
    const names = await listManaged(dir, ['tasks', String(t.index), CHECKPOINTS]).catch(() => [] as string[])
    const newest = names
      .map((n) => CHECKPOINT_NAME.exec(n))
      .filter((m): m is RegExpExecArray => !!m)
      .sort((a, b) => Number(a[2]) - Number(b[2]))
      .pop()
    if (newest) found.push({ task: t.index, path: join(folder, newest[0]), unit: newest[1], at: Number(newest[2]) })
  }
  return found
}

/** Whether `path` is a folder itself, not a link to one elsewhere. */
async function isRealFolder(path: string): Promise<boolean> {
  return !!(await lstat(path).catch(() => null))?.isDirectory()
}

/**
 * Removes `parts` of the job folder `dir` (io/managed-folder.ts): a link is removed itself, never
 * what it points to, at any component; a folder with what it holds; another user's files are left.
 */
async function remove(dir: string, ...parts: string[]): Promise<void> {
  await removeManaged(dir, parts)
}

/**
 * Deletes what the earlier run wrote, as its records list it: its result files (cluster.json's
 * `outputs`), the folders of its tasks and their runs, its scripts, logs and records. With
 * `keepCheckpoints`, each task folder keeps its checkpoints (and only them).
 */
export async function removeJobFiles(dir: string, earlier: JobRecord, keepCheckpoints: boolean): Promise<void> {
  const report = await readClusterReport(dir, earlier).catch(() => undefined)
  for (const name of report?.outputs ?? []) await remove(dir, name)
  for (const parent of ['tasks', 'runs']) {
    // A link in place of tasks/ or runs/ is removed itself: nothing through it is Paralab's.
    const folder = join(dir, parent)
    if (!(await isRealFolder(folder))) {
      if ((await lstat(folder).catch(() => null))?.isSymbolicLink()) await remove(dir, parent)
      continue
    }
    for (const t of earlier.tasks) {
      const index = String(t.index)
      if (parent === 'tasks' && keepCheckpoints && (await isRealFolder(join(folder, index)))) {
        for (const name of await listManaged(dir, [parent, index])) if (name !== CHECKPOINTS) await remove(dir, parent, index, name)
      } else await remove(dir, parent, index)
    }
    await removeManaged(dir, [parent], { recursive: false })
  }
  // What a merge killed while placing its result set left.
  for (const name of await readdir(dir)) if (/^\.merge-\d+$/.test(name)) await remove(dir, name)
  for (const name of JOB_FILES) await remove(dir, name)
}
