// Smallest and largest of an array of any length. `Math.min(...values)` passes every element as an
// argument, which overflows the call stack somewhere past ~10⁵ elements (a 400-series heatmap), so
// every extent of data — cells, frames, samples — is taken by a loop.

type Numbers = ArrayLike<number>

/** The smallest value (NaN if any is NaN, +∞ for none), as Math.min. */
export function minOf(values: Numbers): number {
  let lo = Infinity
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (v !== v) return NaN
    if (v < lo) lo = v
  }
  return lo
}

/** The largest value (NaN if any is NaN, −∞ for none), as Math.max. */
export function maxOf(values: Numbers): number {
  let hi = -Infinity
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (v !== v) return NaN
    if (v > hi) hi = v
  }
  return hi
}

/** The smallest and largest finite values, skipping null, NaN and ±∞; null when there is none. */
export function finiteExtent(values: ArrayLike<number | null>): { min: number; max: number } | null {
  let lo = Infinity
  let hi = -Infinity
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (v === null || !Number.isFinite(v)) continue
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  return lo <= hi ? { min: lo, max: hi } : null
}

/** Appends every element of `items` to `target` (push(...items) overflows the stack for large arrays). */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item)
  return target
}
