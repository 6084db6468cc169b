// Numbers in CSV fields, exactly as JavaScript's Number() reads them.
//
// The parser reads the common `[-]digits[.digits]` itself (see parse-range.ts) as an integer
// mantissa and a power of ten, using the constants below; everything else comes here.

/** Below this, integers are exact doubles. */
export const TWO_53 = 9007199254740992

/** 10^0 … 10^22: all exact doubles. */
export const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`))

/** Decimal text as Number() reads it, minus the forms a data file should not contain (hex, Infinity, NaN). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/**
 * The general path: the value of a field's text (already unquoted), exactly as Number() reads it.
 * Returns NaN for text that is not a decimal number and ±Infinity for numbers beyond the double
 * range. Blank text is not a number here: the caller treats it as a missing value first.
 */
export function numberFromText(text: string): number {
  const t = text.trim()
  return DECIMAL.test(t) ? Number(t) : NaN
}
