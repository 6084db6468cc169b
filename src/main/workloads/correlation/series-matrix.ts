// A data set of the correlation workload as the readers give it: M named series of N samples.

export interface SeriesMatrix {
  /** Series names: the CSV header or first fields, or `s0`, `s1`, … for .npy files. */
  names: string[]
  /** M. */
  m: number
  /** N. */
  n: number
  /** m × n, series after series (row-major by series). */
  values: Float64Array
  /** 1 where a series' values are all equal: its r with every other is NaN. */
  constant: Uint8Array
}

/** Flags the series whose n values are all equal. */
export function constantSeries(values: Float64Array, m: number, n: number): Uint8Array {
  const flags = new Uint8Array(m)
  for (let i = 0; i < m; i++) {
    const at = i * n
    const first = values[at]
    let k = 1
    while (k < n && values[at + k] === first) k++
    flags[i] = k === n ? 1 : 0
  }
  return flags
}

/** A series matrix from values laid out series after series. */
export function seriesMatrix(names: string[], values: Float64Array, m: number, n: number): SeriesMatrix {
  return { names, m, n, values, constant: constantSeries(values, m, n) }
}

/** The names .npy files and generated series get: s0, s1, … */
export function indexNames(m: number): string[] {
  return Array.from({ length: m }, (_, i) => `s${i}`)
}
