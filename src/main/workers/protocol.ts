// Messages between a WorkerPool and its threads.
import type { ApiErrorShape } from '../../shared/errors'

export interface TaskRequest {
  id: number
  task: string
  payload: unknown
}

export interface TaskReply {
  id: number
  result?: unknown
  error?: ApiErrorShape
}
