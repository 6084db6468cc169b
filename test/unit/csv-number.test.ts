// The general number path of the CSV parser against JavaScript's own Number(). (The fast path
// lives in the range parser and is checked through the loader in csv-loader.test.ts.)
import { describe, expect, it } from 'vitest'
import { numberFromText, POW10, TWO_53 } from '../../src/main/io/csv/number'

describe('numberFromText', () => {
  it('agrees with Number() on decimal text of every shape', () => {
    for (const s of [
      '-38.0', '+2', '.5', '-.5', '5.', '1e-3', '1E3', '-1.5e+2', '00012', ' 7 ', '\t-3\t', '2.',
      '9007199254740993', '12345678901234567890', '0.1000000000000000055511151231257827', '1e23',
      '1e-400', '-0', '4.35', '123456.789e-2',
    ])
      expect(Object.is(numberFromText(s), Number(s)), s).toBe(true)
  })

  it('rejects what is not a decimal number', () => {
    for (const s of ['NaN', 'Infinity', '-Infinity', '0x10', '0b1', '0o7', '1_000', 'abc', '1.2.3', '--1', '+-1', '1e', 'e5', '.', '-', '1,5', '12abc', '1 2'])
      expect(numberFromText(s), s).toBeNaN()
  })

  it('gives ±Infinity for numbers beyond the double range', () => {
    expect(numberFromText('1e400')).toBe(Infinity)
    expect(numberFromText('-1e400')).toBe(-Infinity)
  })

  it('has exact constants for the fast path', () => {
    expect(TWO_53).toBe(2 ** 53)
    POW10.forEach((p, i) => expect(BigInt(p)).toBe(10n ** BigInt(i)))
  })
})
