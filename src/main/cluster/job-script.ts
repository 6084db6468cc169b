// Readable sbatch scripts: the tasks' script (one task, or a job array of one task per file) and
// the merge job's. Each runs the same paralab installation that wrote it (node and CLI paths
// recorded) with the same parameters, from the folder the command was typed in, so a script can
// be read, changed and submitted again by hand. Every value reaches the script through the
// quoting of the place it lands in (script-words.ts): data never becomes a line of its own.
import { ApiError } from '../../shared/errors'
import { sbatchLines, type SlurmRequest } from './options'
import { jobPaths } from './job-folder'
import { commentText, sbatchOption, sbatchWord, shellWord, shellWords, slurmPathPattern, visible } from './script-words'

export { shellWord, shellWords } from './script-words'

export interface TaskScript {
  /** The job's name in squeue: `paralab-<workload>`. */
  name: string
  /** The job folder (absolute). */
  dir: string
  cwd: string
  /** `node` and the CLI. */
  paralab: [string, string]
  request: SlurmRequest
  /** The workload command's words before its files, e.g. ['stats']. */
  command: string[]
  /** The input files of each task (several tasks: a job array, one file each). */
  taskFiles: string[][]
  /** The command's flags, after its files. */
  flags: string[]
  /** How the command was typed, for the header. */
  typed: string
  /**
   * Hook for runs that checkpoint: more `#SBATCH` lines (e.g. `--signal=B:USR1@60`) and a signal
   * on which the job requeues itself (`scontrol requeue`) to resume from its last checkpoint.
   */
  extraSbatch?: string[]
  requeueOn?: string
}

const words = (ws: readonly string[], what?: string) => shellWords(ws, what)

/** `--name=value` as a #SBATCH argument, the value written as sbatch reads it back. */
const sbatchPair = (name: string, value: string, what: string) => `--${name}=${sbatchWord(value, what)}`

export function taskScript(s: TaskScript): string {
  const paths = jobPaths(s.dir)
  const array = s.taskFiles.length > 1
  const folder = `the job folder (--out)`
  // Slurm opens each task's logs itself: %a is the array index, the folder's own % written %%.
  const logDir = array ? `${slurmPathPattern(paths.tasks, folder)}/%a` : slurmPathPattern(paths.task(0), folder)
  const ranks = s.request.ntasks ?? 1
  const sbatch = [
    sbatchPair('job-name', s.name, 'the job name'),
    sbatchPair('comment', `paralab:${s.dir}`, folder),
    ...(array ? [`--array=0-${s.taskFiles.length - 1}${s.request.arrayParallelism ? `%${s.request.arrayParallelism}` : ''}`] : []),
    sbatchPair('output', `${logDir}/stdout.log`, folder),
    sbatchPair('error', `${logDir}/stderr.log`, folder),
    ...sbatchLines(s.request),
    ...(s.extraSbatch ?? []).map((a) => sbatchOption(a)),
  ]
  const files = s.taskFiles.flat()
  // The files follow `--`, so that a file named like an option (`--example`) is read as a file.
  const fileArgs = files.length ? ` -- ${array ? '"${FILES[$TASK]}"' : '"${FILES[@]}"'}` : ''
  const command = `"\${PARALAB[@]}" ${words(s.command)}${s.flags.length ? ` ${words(s.flags, 'a parameter')}` : ''} --task-dir="$TASKS_DIR/$TASK"${fileArgs}`
  // Several ranks: one srun starts them all (SLURM_PROCID tells each its rank; rank 0 writes the envelope).
  const launch = `${ranks > 1 ? `srun --ntasks=${ranks} --kill-on-bad-exit=1 ` : ''}${command}`
  if (s.requeueOn !== undefined && !/^[A-Z0-9]+$/.test(s.requeueOn)) throw new ApiError('internal', `requeue signal ${visible(s.requeueOn)} is not a signal name`)
  return [
    '#!/bin/bash',
    `# Paralab: ${commentText(s.typed)}`,
    array ? `# A job array, one task per file; each task writes its envelope, progress and logs in tasks/<index>/.` : `# One task; it writes its envelope, progress and logs in tasks/0/.`,
    `# Submit again by hand: ${commentText(`sbatch ${shellWord(paths.script)}, then sbatch --dependency=afterany:<job id> ${shellWord(paths.mergeScript)}`)}`,
    ...sbatch.map((a) => `#SBATCH ${a}`),
    'set -euo pipefail',
    '# The paralab installation that wrote this script.',
    `PARALAB=(${words(s.paralab)})`,
    `cd -- ${shellWord(s.cwd, 'the working folder')}`,
    `TASKS_DIR=${shellWord(paths.tasks, folder)}`,
    ...(files.length ? [`FILES=(${words(files, 'the file name')})`] : []),
    'TASK=${SLURM_ARRAY_TASK_ID:-0}',
    ...(s.requeueOn
      ? [
          `# On ${s.requeueOn} (asked for before the time limit) the job goes back into the queue and resumes from its checkpoint.`,
          `trap 'scontrol requeue "$SLURM_JOB_ID"' ${s.requeueOn}`,
          `${launch} &`,
          'wait $!',
        ]
      : [ranks > 1 ? launch : `exec ${launch}`]),
    '',
  ].join('\n')
}

/** The merge job: after every task has ended, however it ended, merges their outcomes into DIR. */
export function mergeScript(s: Pick<TaskScript, 'name' | 'dir' | 'cwd' | 'paralab' | 'request'>): string {
  const paths = jobPaths(s.dir)
  const folder = `the job folder (--out)`
  return [
    '#!/bin/bash',
    `# Paralab: merges the tasks of the job in ${commentText(s.dir)} into its result set (submitted with --dependency=afterany:<job id>).`,
    `#SBATCH ${sbatchPair('job-name', `${s.name}-merge`, 'the job name')}`,
    `#SBATCH ${sbatchPair('comment', `paralab:${s.dir}`, folder)}`,
    `#SBATCH ${sbatchPair('output', slurmPathPattern(paths.mergeLog, folder), folder)}`,
    ...(s.request.partition ? [`#SBATCH ${sbatchPair('partition', s.request.partition, '--partition')}`] : []),
    'set -euo pipefail',
    `PARALAB=(${words(s.paralab)})`,
    `cd -- ${shellWord(s.cwd, 'the working folder')}`,
    `exec "\${PARALAB[@]}" merge -- ${shellWord(s.dir, folder)}`,
    '',
  ].join('\n')
}
