// Order-preserving integer keys of floating-point values, for exact selection without comparisons.
//
// A key is two unsigned 32-bit words (hi, lo). For an f64 the key is its 64 bits with the sign bit
// flipped when positive and every bit flipped when negative, so unsigned key order is numeric order,
// with −0 just below +0 (exactly as Float64Array.prototype.sort orders them). An f32 key is the
// same transform of its 32 bits, held in hi with lo = 0, so one radix driver serves both widths.
// Keys are read as 16-bit digits, most significant first: f64 keys have 4 levels, f32 keys 2.
import type { Precision } from '../../../shared/workloads/stats/types'

export const DIGIT_BITS = 16
export const DIGIT_BINS = 1 << DIGIT_BITS

export interface Key {
  hi: number
  lo: number
}

export function keyLevels(precision: Precision): number {
  return precision === 'f64' ? 4 : 2
}

const f64 = new Float64Array(1)
const f64Words = new Uint32Array(f64.buffer)
const f32 = new Float32Array(1)
const f32Word = new Uint32Array(f32.buffer)

export function f64ToKey(x: number): Key {
  f64[0] = x
  return wordsToKey(f64Words[1], f64Words[0])
}

/** Key of the f64 whose little-endian words are (hi, lo), e.g. read through a Uint32Array view. */
export function wordsToKey(hi: number, lo: number): Key {
  const flip = hi >> 31 // all ones when negative
  return { hi: (hi ^ (flip | 0x80000000)) >>> 0, lo: (lo ^ flip) >>> 0 }
}

export function keyToF64(key: Key): number {
  const flip = ~key.hi >> 31 // all ones when the value was negative
  f64Words[1] = key.hi ^ (flip | 0x80000000)
  f64Words[0] = key.lo ^ flip
  return f64[0]
}

export function f32ToKey(x: number): Key {
  f32[0] = x
  const w = f32Word[0]
  return { hi: (w ^ ((w >> 31) | 0x80000000)) >>> 0, lo: 0 }
}

export function keyToF32(key: Key): number {
  f32Word[0] = key.hi ^ ((~key.hi >> 31) | 0x80000000)
  return f32[0]
}

export function keyToValue(key: Key, precision: Precision): number {
  return precision === 'f64' ? keyToF64(key) : keyToF32(key)
}

/** Masks of the bits fixed before `level` (the prefix a key must match to take part). */
export function prefixMask(level: number): Key {
  switch (level) {
    case 0:
      return { hi: 0, lo: 0 }
    case 1:
      return { hi: 0xffff0000, lo: 0 }
    case 2:
      return { hi: 0xffffffff, lo: 0 }
    case 3:
      return { hi: 0xffffffff, lo: 0xffff0000 }
    default:
      throw new RangeError(`radix level ${level} is outside 0…3`)
  }
}

/** The 16-bit digit of `key` at `level`. */
export function keyDigit(key: Key, level: number): number {
  const word = level < 2 ? key.hi : key.lo
  return (level & 1 ? word : word >>> 16) & 0xffff
}

/** `prefix` with `digit` placed at `level`. */
export function withDigit(prefix: Key, level: number, digit: number): Key {
  switch (level) {
    case 0:
      return { hi: (digit << 16) >>> 0, lo: 0 }
    case 1:
      return { hi: (prefix.hi | digit) >>> 0, lo: 0 }
    case 2:
      return { hi: prefix.hi, lo: (digit << 16) >>> 0 }
    case 3:
      return { hi: prefix.hi, lo: (prefix.lo | digit) >>> 0 }
    default:
      throw new RangeError(`radix level ${level} is outside 0…3`)
  }
}

export function matchesPrefix(key: Key, prefix: Key, level: number): boolean {
  const m = prefixMask(level)
  return ((key.hi & m.hi) >>> 0) === prefix.hi && ((key.lo & m.lo) >>> 0) === prefix.lo
}

export function compareKeys(a: Key, b: Key): number {
  return a.hi !== b.hi ? a.hi - b.hi : a.lo - b.lo
}
