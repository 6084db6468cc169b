// How a run becomes a cluster job's tasks: its files spread over tasks (one task per file for a
// workload that splits by file, else one task with them all) and the flags that give the run's
// parameters again on each task's command line. The CLI's `--slurm` and the dashboard's
// "Run on the cluster" both plan their tasks here.
import { ApiError } from '../../shared/errors'
import { flagName, type ParamSpec } from '../../shared/workloads/schema'
import type { AnyEngine } from '../engine'

export interface TaskPlan {
  /** The input files of each task (several tasks: a job array, one file each). */
  taskFiles: string[][]
  /** The parameters as the command's flags, after its files. */
  flags: string[]
  /** Each task keeps a result set of its own (the workload has no merge of files). */
  separate: boolean
}

/**
 * A parameter's value as the flag word that gives it again: `--flag=value`, so that a value starting
 * with `-` is still the flag's value. A list is joined by commas, as the flag is read back, so a name
 * holding a comma (or blank at either end) is refused rather than read back as other names.
 */
export function flagWords(name: string, spec: ParamSpec, value: unknown): string[] {
  const flag = `--${flagName(name, spec)}`
  if (spec.type === 'boolean') return value ? [flag] : []
  if (Array.isArray(value)) {
    const bad = value.map(String).find((v) => v.includes(',') || v.trim() !== v || v === '')
    if (bad !== undefined) throw new ApiError('invalid-argument', `${flag}: the name ${JSON.stringify(bad)} ${bad === '' ? 'is empty' : bad.includes(',') ? 'holds a comma' : 'begins or ends with a blank'}, so a cluster task's ${flag} would read other names back`)
    return [`${flag}=${value.join(',')}`]
  }
  return [`${flag}=${String(value)}`]
}

/**
 * `params` as tasks: `flagParams` are the parameters the command takes as flags, `filesParam` the
 * one whose files are its arguments.
 */
export function planTasks(engine: AnyEngine, params: Record<string, unknown>, flagParams: [string, ParamSpec][], filesParam?: string): TaskPlan {
  const files = filesParam ? (params[filesParam] as string[]) : []
  const perFile = engine.cluster?.split === 'file' && files.length > 1
  return {
    taskFiles: perFile ? files.map((f) => [f]) : [files],
    flags: flagParams.flatMap(([n, spec]) => (params[n] === undefined ? [] : flagWords(n, spec, params[n]))),
    separate: perFile && !(engine.cluster?.split === 'file' && engine.cluster.merge),
  }
}
