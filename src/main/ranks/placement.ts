// Where this process stands in a job of several ranks: its rank, the job's size, the job's id and
// the folder the ranks share (on a filesystem every node sees). Slurm's srun sets SLURM_PROCID,
// SLURM_NTASKS and SLURM_JOB_ID for each task; the local launcher (launch.ts) sets the same.
import { ApiError } from '../../shared/errors'

export interface RankPlacement {
  /** 0 … size−1. */
  rank: number
  size: number
  /**
   * The job's identity: the rendezvous file of another job, or of an earlier start of this one
   * (a requeued Slurm job keeps its id, its restart count grows), is never taken for this one's.
   */
  job: string
  /** The job folder: rank 0 publishes its address there; checkpoints go there. */
  folder: string
}

/** The variable naming the job folder, for a job script or launcher that cannot pass it otherwise. */
export const JOB_DIR_VARIABLE = 'PARALAB_JOB_DIR'

/**
 * The placement the environment describes: SLURM_PROCID, SLURM_NTASKS, SLURM_JOB_ID (with
 * SLURM_STEP_ID and SLURM_RESTART_COUNT when set) and the job folder (`folder`, else
 * PARALAB_JOB_DIR). Undefined without a job folder: a process inside a Slurm allocation is not a
 * rank of Paralab's unless its job says where the ranks meet.
 */
export function placementFromEnv(env: NodeJS.ProcessEnv, folder = env[JOB_DIR_VARIABLE]): RankPlacement | undefined {
  if (!folder) return undefined
  const number = (name: string, fallback: number): number => {
    const text = env[name]
    if (text === undefined || text === '') return fallback
    const n = Number(text)
    if (!Number.isInteger(n) || n < 0) throw new ApiError('invalid-argument', `${name} must be a whole number ≥ 0, got "${text}"`)
    return n
  }
  const size = number('SLURM_NTASKS', 1)
  const rank = number('SLURM_PROCID', 0)
  if (size < 1) throw new ApiError('invalid-argument', 'SLURM_NTASKS must be at least 1, got 0')
  if (rank >= size) throw new ApiError('invalid-argument', `SLURM_PROCID ${rank} is not below SLURM_NTASKS ${size}`)
  const job = [env.SLURM_JOB_ID || 'local', env.SLURM_STEP_ID, env.SLURM_RESTART_COUNT].filter((s) => s !== undefined && s !== '').join('.')
  return { rank, size, job, folder }
}
