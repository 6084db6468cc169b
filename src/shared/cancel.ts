// Cooperative cancellation: work that cannot be interrupted (a GPU dispatch, a parsing loop)
// checks its job's signal between steps.
import { ApiError } from './errors'

export function throwIfAborted(signal: { readonly aborted: boolean } | undefined): void {
  if (signal?.aborted) throw new ApiError('cancelled', 'cancelled')
}
