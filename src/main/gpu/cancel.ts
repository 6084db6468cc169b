// Cooperative cancellation: GPU work cannot be interrupted mid-dispatch, so jobs check
// their signal between batches.
import { ApiError } from '../../shared/api'

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ApiError('cancelled', 'cancelled')
}
