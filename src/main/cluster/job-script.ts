// Readable sbatch scripts: the tasks' script (one task, or a job array of one task per file) and
// the merge job's. Each runs the same paralab installation that wrote it (node and CLI paths
// recorded) with the same parameters, from the folder the command was typed in, so a script can
// be read, changed and submitted again by hand.
import { sbatchLines, type SlurmRequest } from './options'
import { jobPaths } from './job-folder'

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

/** A word for bash: as is when it cannot be misread, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

const words = (ws: readonly string[]) => ws.map(shellWord).join(' ')

export function taskScript(s: TaskScript): string {
  const paths = jobPaths(s.dir)
  const array = s.taskFiles.length > 1
  const logDir = array ? `${paths.tasks}/%a` : paths.task(0)
  const ranks = s.request.ntasks ?? 1
  const sbatch = [
    `--job-name=${s.name}`,
    `--comment=paralab:${s.dir}`,
    ...(array ? [`--array=0-${s.taskFiles.length - 1}${s.request.arrayParallelism ? `%${s.request.arrayParallelism}` : ''}`] : []),
    `--output=${logDir}/stdout.log`,
    `--error=${logDir}/stderr.log`,
    ...sbatchLines(s.request),
    ...(s.extraSbatch ?? []),
  ]
  const files = array ? ['"${FILES[$TASK]}"'] : s.taskFiles[0].map(shellWord)
  // Several ranks: one srun starts them all (SLURM_PROCID tells each its rank; rank 0 writes the envelope).
  const launch = `${ranks > 1 ? `srun --ntasks=${ranks} --kill-on-bad-exit=1 ` : ''}"\${PARALAB[@]}" ${words(s.command)} ${files.join(' ')}${s.flags.length ? ` ${words(s.flags)}` : ''} --task-dir "${shellWord(paths.tasks)}/$TASK"`
  return [
    '#!/bin/bash',
    `# Paralab: ${s.typed}`,
    array ? `# A job array, one task per file; each task writes its envelope, progress and logs in tasks/<index>/.` : `# One task; it writes its envelope, progress and logs in tasks/0/.`,
    `# Submit again by hand: sbatch ${shellWord(paths.script)}, then sbatch --dependency=afterany:<job id> ${shellWord(paths.mergeScript)}`,
    ...sbatch.map((a) => `#SBATCH ${a}`),
    'set -euo pipefail',
    '# The paralab installation that wrote this script.',
    `PARALAB=(${words(s.paralab)})`,
    `cd ${shellWord(s.cwd)}`,
    ...(array ? [`FILES=(${s.taskFiles.map((f) => shellWord(f[0])).join(' ')})`] : []),
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
  return [
    '#!/bin/bash',
    `# Paralab: merges the tasks of the job in ${s.dir} into its result set (submitted with --dependency=afterany:<job id>).`,
    `#SBATCH --job-name=${s.name}-merge`,
    `#SBATCH --comment=paralab:${s.dir}`,
    `#SBATCH --output=${paths.mergeLog}`,
    ...(s.request.partition ? [`#SBATCH --partition=${s.request.partition}`] : []),
    'set -euo pipefail',
    `PARALAB=(${words(s.paralab)})`,
    `cd ${shellWord(s.cwd)}`,
    `exec "\${PARALAB[@]}" merge ${shellWord(s.dir)}`,
    '',
  ].join('\n')
}
