// Which of a workload's parameters its command takes as flags of their own: every one but its
// files (given as arguments) and those named like the flags every workload command has (`force`
// is set by the common `--force`). The command line and the command a report prints to run it
// again both follow this.
import { flagName, type ParamSchema, type ParamSpec } from '../../shared/workloads/schema'

/** The cluster's flags of every workload command (cli/cluster-flags.ts reads them). */
export const CLUSTER_OPTIONS = {
  slurm: { type: 'boolean' },
  executor: { type: 'string' },
  partition: { type: 'string' },
  time: { type: 'string' },
  nodes: { type: 'string' },
  ntasks: { type: 'string' },
  'cpus-per-task': { type: 'string' },
  'gpus-per-task': { type: 'string' },
  'array-parallelism': { type: 'string' },
  'sbatch-arg': { type: 'string', multiple: true },
  wait: { type: 'boolean' },
  'task-dir': { type: 'string' },
} as const

/** Flags every workload command has; a `force` parameter is set by the common `--force`. */
export const COMMON_FLAGS = new Set(['example', 'out', 'force', 'json', 'progress', 'timings', 'width', 'height', 'scale', 'report', 'help', ...Object.keys(CLUSTER_OPTIONS)])

/** The parameters taken as flags of their own, less those a preset fixes. */
export function flagParams(schema: ParamSchema, fixed: Record<string, unknown> = {}): [string, ParamSpec][] {
  return Object.entries(schema).filter(([name, spec]) => spec.type !== 'files' && !(name in fixed) && !COMMON_FLAGS.has(flagName(name, spec)))
}
