// The context a job gets from its host, for tests that run an engine in process: inputs are the
// paths as given, and unless a test passes its adapter, asking for the GPU fails as a machine
// without one does.
import { ApiError } from '../../src/shared/errors'
import type { JobContext } from '../../src/main/engine'
import type { JobProgress } from '../../src/shared/jobs'

export const NO_ADAPTER = 'no adapter in this test'

/** A context, CPU-only unless `more.gpu` is given; `events` collects the progress reports, `more` replaces any part. */
export function jobContext(more: Partial<JobContext> & { events?: JobProgress[] } = {}): JobContext {
  const { events, ...rest } = more
  return {
    signal: new AbortController().signal,
    progress: (p) => events?.push(p),
    input: async (p) => p,
    gpu: async () => {
      throw new ApiError('gpu-unavailable', NO_ADAPTER)
    },
    ...rest,
  }
}
