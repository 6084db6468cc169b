// Where a command's time goes: the parts that take time (a file's load, the GPU's adapter and
// device requests, each pipeline's creation, uploads, submits, computes, writing the results) record
// spans, and `--timings` prints them. Off unless a command turns it on: one process, one job (the
// CLI); `paralab serve` runs jobs side by side and records nothing.

/** One stretch of work, in milliseconds since the process's time origin (performance.now()). */
export interface Span {
  stage: string
  start: number
  end: number
  /** A file being loaded: other stages are shown with their part beside it. */
  load?: boolean
}

let spans: Span[] | null = null

/** Starts recording (forgetting what was recorded); `false` stops. */
export function recordTimeline(on = true): void {
  spans = on ? [] : null
}

/** The spans recorded so far, in the order they ended. */
export function timelineSpans(): readonly Span[] {
  return spans ?? []
}

/** Records `stage` from `start` to `end` (default now), when recording. */
export function addSpan(stage: string, start: number, end = performance.now(), load = false): void {
  spans?.push({ stage, start, end, ...(load && { load }) })
}

/** `work()`, recorded as a span of `stage` whether it succeeds or fails. */
export async function timeSpan<T>(stage: string, work: () => Promise<T>): Promise<T> {
  if (!spans) return work()
  const t = performance.now()
  try {
    return await work()
  } finally {
    addSpan(stage, t)
  }
}
