// Long GPU work submitted in pieces: a dispatch of W workgroups becomes submits of a few workgroups
// each, so that a cancel is seen between pieces, never more than about PIECE_MAX_MS after it was
// asked. A piece's size comes from the pace measured so far (workgroups per ms, per kind of
// work): a software adapter and a data-centre GPU differ a thousandfold, so no fixed size serves
// both. On a fast GPU the pace is learnt in the first run and later runs submit whole stages.
import { throwIfAborted } from '../../shared/cancel'
import type { Gpu, Work } from './gpu'

/** A piece aims at this long: half the most a piece may take, for a pace that varies between pieces. */
export const PIECE_MS = 250
/** What a piece should never exceed, so that a cancel answers promptly. */
export const PIECE_MAX_MS = 500
/** A piece at most this many times larger than the last, until the pace is known from a piece of some length. */
const GROWTH = 16
/** Pieces shorter than this measure latency more than work: the pace they give only bounds it from below. */
const MEASURABLE_MS = 2

/** Workgroups [first, first + count) of one dispatch, as the work of one submit. */
export interface Sliceable {
  /** Workgroups in all. */
  count: number
  /** The work of `count` workgroups from `first` (the caller writes what the kernel reads of `first`). */
  piece(first: number, count: number): Work
}

/** The pace of each kind of work (workgroups per ms), learnt from the pieces run so far. */
export class Pace {
  private readonly rates = new Map<string, { rate: number; measured: boolean }>()

  /** Workgroups of the next piece of `kind`: one when nothing is known, else what fits PIECE_MS at the pace seen. */
  size(kind: string, left: number, last: number): number {
    const known = this.rates.get(kind)
    if (!known) return Math.min(left, 1)
    const fits = Math.floor(known.rate * PIECE_MS)
    const most = known.measured ? fits : Math.min(fits, Math.max(1, last) * GROWTH)
    return Math.max(1, Math.min(left, most))
  }

  record(kind: string, count: number, ms: number): void {
    const measured = ms >= MEASURABLE_MS
    const rate = count / Math.max(ms, 1e-3)
    const was = this.rates.get(kind)
    // A short piece's pace is a lower bound: it never lowers one measured on a longer piece.
    if (!measured && was?.measured && was.rate > rate) return
    this.rates.set(kind, { rate, measured: measured || (was?.measured ?? false) })
  }
}

/**
 * Runs each part's workgroups in pieces, in order, one submit each, checking `signal` between them.
 * Returns the milliseconds the submits took, summed (the same measure as one `gpu.run`).
 */
export async function runInPieces(gpu: Gpu, kind: string, parts: readonly Sliceable[], pace: Pace, signal?: AbortSignal): Promise<number> {
  let ms = 0
  let last = 0
  for (const part of parts)
    for (let first = 0; first < part.count; ) {
      throwIfAborted(signal)
      const count = pace.size(kind, part.count - first, last)
      const t = await gpu.run(`${kind} [${first}, ${first + count}) of ${part.count}`, part.piece(first, count), { signal })
      pace.record(kind, count, t)
      ms += t
      last = count
      first += count
    }
  return ms
}
