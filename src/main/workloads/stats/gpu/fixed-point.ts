// Values of the sums the f64 kernels accumulate in 128-bit fixed point (shaders/stats/f64.wgsl):
// a two's complement integer v, least significant word first, worth v · 2^unit.

/** v · 2^unit rounded once to the nearest double (ties to even), subnormals and overflow included. */
export function fixedToNumber(words: ArrayLike<number>, unit: number): number {
  let v = 0n
  for (let i = words.length - 1; i >= 0; i--) v = (v << 32n) | BigInt(words[i] >>> 0)
  const bits = BigInt(words.length * 32)
  if (words.length > 0 && words[words.length - 1] >>> 31) v -= 1n << bits
  return scaledToNumber(v, unit)
}

/** m · 2^e rounded once to the nearest double. */
export function scaledToNumber(m: bigint, e: number): number {
  if (m === 0n) return 0
  const negative = m < 0n
  let a = negative ? -m : m
  const top = a.toString(2).length + e - 1 // exponent of the leading bit
  // Below 2^-1022 doubles have a fixed unit 2^-1074: round there first, once.
  if (top < -1022 && e < -1074) {
    a = roundShift(a, -1074 - e)
    e = -1074
  }
  const r = ldexp(Number(a), e) // Number(bigint) rounds to nearest even; scaling a normal is exact
  return negative ? -r : r
}

/** a / 2^s rounded to nearest, ties to even. */
function roundShift(a: bigint, s: number): bigint {
  const shift = BigInt(s)
  const q = a >> shift
  const rest = a - (q << shift)
  const half = 1n << (shift - 1n)
  return rest > half || (rest === half && (q & 1n) === 1n) ? q + 1n : q
}

/** x · 2^e in steps that keep every intermediate value exact. */
function ldexp(x: number, e: number): number {
  while (e > 600) {
    x *= 2 ** 600
    e -= 600
  }
  while (e < -600) {
    x *= 2 ** -600
    e += 600
  }
  return x * 2 ** e
}
