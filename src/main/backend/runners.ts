// Which code runs each kind of job.
import { benchDevice } from '../workloads/device/bench'
import { runStatsJob } from '../workloads/stats/run-stats'
import type { DataAccess } from './data-files'
import type { JobRunners } from './jobs'

export function jobRunners(files: DataAccess): JobRunners {
  return {
    'bench-device': { lane: 'gpu', run: (params, ctx) => benchDevice(params, ctx) },
    // Stats jobs may use the GPU backend; they queue behind other GPU work.
    stats: { lane: 'gpu', run: (params, ctx) => runStatsJob(params, ctx, files) },
  }
}
