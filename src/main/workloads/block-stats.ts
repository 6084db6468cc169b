// What each cell of a heatmap stands for when it covers a block of a matrix (of r, of distances):
// the block's least, greatest and mean value, and how many it had. The heatmaps of a run and their
// zooms at full resolution all aggregate through this, a row of the matrix at a time. Missing
// values (NaN, or a sentinel such as an unreachable pair's distance) are skipped; a cell with none
// shows null.

export class BlockStats {
  private readonly sums: Float64Array
  private readonly counts: Uint32Array
  private readonly low: Float64Array
  private readonly high: Float64Array

  /** `cells` cells in all; `missing`: a value skipped as NaN is. */
  constructor(
    cells: number,
    private readonly missing = NaN,
  ) {
    this.sums = new Float64Array(cells)
    this.counts = new Uint32Array(cells)
    this.low = new Float64Array(cells).fill(Infinity)
    this.high = new Float64Array(cells).fill(-Infinity)
  }

  /** Adds values[j] to cell `at + cellOf[j]`, for each j of cellOf. */
  addRow(values: ArrayLike<number>, at: number, cellOf: Uint32Array): void {
    const { sums, counts, low, high, missing } = this
    for (let j = 0; j < cellOf.length; j++) {
      const x = values[j]
      if (x !== x || x === missing) continue
      const c = at + cellOf[j]
      sums[c] += x
      counts[c]++
      if (x < low[c]) low[c] = x
      if (x > high[c]) high[c] = x
    }
  }

  /** Each cell's least value, as `shown` writes it; null where the block had none. */
  least(shown: (v: number) => number = same): (number | null)[] {
    return Array.from(this.low, (v, c) => (this.counts[c] ? shown(v) : null))
  }

  greatest(shown: (v: number) => number = same): (number | null)[] {
    return Array.from(this.high, (v, c) => (this.counts[c] ? shown(v) : null))
  }

  mean(shown: (v: number) => number = same): (number | null)[] {
    return Array.from(this.sums, (s, c) => (this.counts[c] ? shown(s / this.counts[c]) : null))
  }
}

const same = (v: number) => v

/** The cell of each of n positions in blocks of `block` positions: ⌊p / block⌋. */
export function blockCells(n: number, block: number): Uint32Array {
  const cells = new Uint32Array(n)
  for (let p = 0; p < n; p++) cells[p] = Math.floor(p / block)
  return cells
}
