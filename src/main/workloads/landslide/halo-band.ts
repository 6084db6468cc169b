// One rank's share of the grid: its own rows plus 2·S halo rows on each side, simulated as a grid
// of its own whose outer halo rows stand in for the grid's border (never updated, giving no flow).
// The error of that frozen border travels two rows a step, so after S steps the own rows still hold
// exactly what one grid would (the argument of gpu/gpu-bands.ts); every S steps the halo rows are
// refreshed from the neighbours. `serial` and `active` steps, in f64, on this thread.
//
// The same argument gives a neighbour's rows ahead of the band (the overlap of run-ranks.ts): rows
// first … first+count−1 after k steps need only the rows within 2·k of them now, so a strip of the
// band that wide, stepped k times on its own (its ends frozen), holds them exactly; the band's own
// steps then run while they travel.
import { ThreadSimulation, type InitialState } from './simulation'

/** The strip of a band of `rows` rows whose k steps give rows first … first+count−1 exactly: rows lo … hi−1. */
export function edgeStrip(first: number, count: number, k: number, rows: number): { lo: number; hi: number } {
  return { lo: Math.max(0, first - 2 * k), hi: Math.min(rows, first + count + 2 * k) }
}

/** A band simulated as a grid of its own (ThreadSimulation), whose rows can be read, overwritten and stepped ahead on strips. */
export class HaloBand extends ThreadSimulation {
  /** Strips by their rows `lo:hi`, made on first use (edgeRows). */
  private readonly strips = new Map<string, HaloBand>()

  /** `state`: the band's rows (own and halo), as a grid of their own. */
  constructor(
    private readonly state: InitialState,
    active: boolean,
  ) {
    super(state, active)
  }

  /** Rows first … first+count−1 as they will be after `k` more steps, computed on a strip (the band is left as it is). */
  async edgeRows(first: number, count: number, k: number): Promise<Float64Array> {
    const { lo, hi } = edgeStrip(first, count, k, this.state.rows)
    const key = `${lo}:${hi}`
    let strip = this.strips.get(key)
    const { cols } = this.state
    if (!strip) {
      const rows = <T extends Float64Array | Uint8Array>(a: T) => a.subarray(lo * cols, hi * cols) as T
      strip = new HaloBand({ rows: hi - lo, cols, z: rows(this.state.z), h: this.h.subarray(lo * cols, hi * cols), mask: this.state.mask && rows(this.state.mask) }, this.spans !== null)
      this.strips.set(key, strip)
    }
    // The band's rows now, at the band's step parity (which of the active steps' span buffers is current).
    strip.done = this.done
    strip.writeRows(0, this.h.subarray(lo * cols, hi * cols))
    await strip.advance(k)
    return strip.readRows(first - lo, count)
  }

  /** A copy of `count` rows of h from local row `first` on. */
  readRows(first: number, count: number): Float64Array {
    const { cols } = this.state
    return this.h.slice(first * cols, (first + count) * cols)
  }

  /** Overwrites rows from local row `first` on, and where their debris lies for the active steps. */
  writeRows(first: number, rows: Float64Array): void {
    const { cols } = this.state
    this.h.set(rows, first * cols)
    if (!this.spans) return
    // The spans of the current step's parity; the other buffer is rewritten by the next step.
    const base = (this.done & 1) * 2 * this.state.rows
    const count = rows.length / cols
    for (let i = first; i < first + count; i++) {
      let lo = -1
      let hi = -1
      if (i > 0 && i < this.state.rows - 1)
        for (let j = 1; j < cols - 1; j++)
          if (this.h[i * cols + j] !== 0) {
            if (lo < 0) lo = j
            hi = j
          }
      this.spans[base + 2 * i] = lo < 0 ? 1 : lo
      this.spans[base + 2 * i + 1] = lo < 0 ? 0 : hi
    }
  }
}
