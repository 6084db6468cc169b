// Doubles compared bit for bit (Object.is: −0 is not 0), saying where two sequences first differ.

/** Where `got` and `want` first differ, or undefined when they hold the same doubles in the same order. */
export function sameDoubles(got: ArrayLike<number>, want: ArrayLike<number>): string | undefined {
  const n = Math.min(got.length, want.length)
  for (let i = 0; i < n; i++) if (!Object.is(got[i], want[i])) return `value ${i} is ${Object.is(got[i], -0) ? '-0' : got[i]}; the reference has ${Object.is(want[i], -0) ? '-0' : want[i]}`
  if (got.length !== want.length) return `${got.length} values; the reference has ${want.length}`
  return undefined
}
