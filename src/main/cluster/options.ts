// What a cluster run asks of Slurm (`--partition`, `--time`, `--nodes`, `--ntasks`, …), checked
// before anything is written or submitted: each bad value is refused with its flag named.
import type { ClusterRequest } from '../../shared/cluster'
import { sbatchOption, sbatchWord } from './script-words'

/** What a run asks of Slurm: the checked fields (src/shared/cluster.ts), and anything else. */
export interface SlurmRequest extends ClusterRequest {
  /** Anything else, each one `#SBATCH` argument, e.g. `--mem=8G` (the CLI's --sbatch-arg; never from a dashboard). */
  sbatchArgs: string[]
}

// The checks live in src/shared, where the dashboard's form and the backend's requests use them too.
export { checkClusterRequest, checkCount, checkPartition, checkTime } from '../../shared/cluster'

/** The request's lines for a job script, without the `#SBATCH ` prefix, each value written as sbatch reads it back. */
export function sbatchLines(req: SlurmRequest): string[] {
  const pair = (name: string, value: string | number | undefined) => (value === undefined || value === '' ? [] : [`--${name}=${sbatchWord(String(value), `--${name}`)}`])
  return [
    ...pair('partition', req.partition),
    ...pair('time', req.time),
    ...pair('nodes', req.nodes),
    ...pair('ntasks', req.ntasks),
    ...pair('cpus-per-task', req.cpusPerTask),
    ...pair('gpus-per-task', req.gpusPerTask),
    ...req.sbatchArgs.map((a) => sbatchOption(a)),
  ]
}
