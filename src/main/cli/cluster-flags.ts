// The cluster flags of every workload command (`--slurm`, Slurm's options, `--task-dir`): their
// help and their check. The cluster code itself (src/main/cli/cluster-run.ts) loads only when one is given.
import { ApiError } from '../../shared/errors'
import { CLUSTER_FIELDS } from '../../shared/cluster'
import { checkClusterRequest, type SlurmRequest } from '../cluster/options'
import type { Executor } from '../cluster/job-folder'
import { sbatchOption } from '../cluster/script-words'
import { CLUSTER_OPTIONS } from '../terminal/flag-params'


export const CLUSTER_HELP: [string, string][] = [
  ['--slurm', 'run on the Slurm cluster: write a job script into --out DIR (required, on a filesystem the compute nodes share), submit it and print the job id; several files become a job array, one task per file, and a merge job writes the result set into DIR'],
  ['--executor slurm|local', 'local: run the same scripts\' tasks as processes on this machine (then wait), with the same folder layout and merge'],
  ['--partition P, --time T', 'the partition, and the time limit (minutes, h:m:s, d-h, …)'],
  ['--nodes N, --ntasks N', 'nodes, and ranks of each task (more than one: the task runs under srun)'],
  ['--cpus-per-task C, --gpus-per-task G', 'CPUs and GPUs of each rank'],
  ['--array-parallelism K', 'at most K tasks of a job array at once (%K)'],
  ['--sbatch-arg ARG', 'any other sbatch option, e.g. --sbatch-arg=--mem=8G (repeatable)'],
  ['--wait', 'wait for the job, showing its tasks\' progress, then print the results as the local run does, with its exit code (--json: the envelope with `cluster`)'],
  ['--task-dir DIR', 'run as one task of a cluster job: the envelope, progress events and exit record go to DIR (the job scripts use it)'],
]

export interface ClusterMode {
  executor: Executor
  request: SlurmRequest
  wait: boolean
}

/** The cluster options given, checked; undefined for a local run (then none may be given). */
export function clusterMode(values: Record<string, any>): ClusterMode | undefined {
  const executor = values.executor ?? (values.slurm ? 'slurm' : undefined)
  if (executor !== undefined && executor !== 'slurm' && executor !== 'local') throw new ApiError('invalid-argument', `--executor must be slurm or local, got "${executor}"`)
  const given = Object.keys(CLUSTER_OPTIONS).filter((k) => k !== 'slurm' && k !== 'executor' && k !== 'task-dir' && values[k] !== undefined)
  if (!executor) {
    if (given.length) throw new ApiError('invalid-argument', `--${given[0]} is for cluster runs: add --slurm (or --executor local)`)
    return undefined
  }
  if (values['task-dir'] !== undefined) throw new ApiError('invalid-argument', '--task-dir is how a job runs its tasks; it does not go with --slurm')
  if (!values.out) throw new ApiError('invalid-argument', `--${values.slurm ? 'slurm' : 'executor'} needs --out DIR: the job's folder, on a filesystem the compute nodes share`)
  // Each is checked now as the script will write it: an sbatch option, alone on its #SBATCH line.
  const sbatchArgs: string[] = values['sbatch-arg'] ?? []
  for (const arg of sbatchArgs) sbatchOption(arg)
  return {
    executor,
    wait: !!values.wait,
    request: {
      ...checkClusterRequest(Object.fromEntries(Object.entries(CLUSTER_FIELDS).map(([k, f]) => [k, values[f.flag]]))),
      sbatchArgs,
    },
  }
}
