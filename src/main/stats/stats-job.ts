import { ApiError } from '../../shared/api'
import type { StatsParams, StatsResult } from '../../shared/stats'
import type { DataAccess } from '../backend/data-files'
import type { JobContext } from '../backend/jobs'

export async function runStatsJob(_params: StatsParams, _ctx: JobContext, _files: DataAccess): Promise<StatsResult> {
  throw new ApiError('internal', 'statistics jobs are not available yet')
}
