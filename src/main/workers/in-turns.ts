// Work on the main thread that would hold the event loop for long (parsing a big grid, hashing
// it, building a run's maps), done in slices: between them `paralab serve` answers its requests
// and a cancel is seen. The work is written once, as a generator that yields between pieces.
import { throwIfAborted } from '../../shared/cancel'

/** How long a slice runs before the event loop gets a turn. */
export const SLICE_MS = 20

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A clock for loops: `await turns.maybe()` gives the event loop a turn once a slice has passed. */
export class Turns {
  private since = performance.now()

  constructor(
    private readonly signal?: AbortSignal,
    private readonly sliceMs = SLICE_MS,
  ) {}

  async maybe(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return
    await turn()
    throwIfAborted(this.signal)
    this.since = performance.now()
  }
}

/** Runs `work` to its end in slices; its yields are where it may pause. */
export async function inTurns<T>(work: Generator<unknown, T>, signal?: AbortSignal): Promise<T> {
  const turns = new Turns(signal)
  for (;;) {
    const next = work.next()
    if (next.done) return next.value
    await turns.maybe()
  }
}

/** Runs `work` to its end at once (callers that hold no event loop others need: tests, a CLI step). */
export function atOnce<T>(work: Generator<unknown, T>): T {
  for (;;) {
    const next = work.next()
    if (next.done) return next.value
  }
}
