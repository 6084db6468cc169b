// Parameter schemas: validation with defaults, and the messages that name the parameter, the
// value and what is allowed.
import { describe, expect, it } from 'vitest'
import { allowedText, defaultParams, flagName, validateParams, type ParamSchema } from '../../src/shared/workloads/schema'

const schema = {
  inputs: { type: 'files', label: 'Inputs', extensions: ['csv'], help: 'h' },
  size: { type: 'int', label: 'Size', min: 1, max: 64, default: 8, help: 'h' },
  scale: { type: 'number', label: 'Scale', min: 0, max: 1, optional: true, help: 'h' },
  mode: { type: 'choice', label: 'Mode', choices: ['fast', 'exact'], default: 'exact', help: 'h' },
  variants: { type: 'choices', label: 'Variants', choices: ['a', 'b', 'c'], default: ['a'], help: 'h', flag: 'variant' },
  names: { type: 'names', label: 'Names', optional: true, help: 'h' },
  verbose: { type: 'boolean', label: 'Verbose', default: false, help: 'h' },
  readMb: { type: 'int', label: 'Read', min: 1, max: 2, optional: true, help: 'h' },
} as const satisfies ParamSchema

describe('validateParams', () => {
  it('fills defaults and leaves optional parameters out', () => {
    expect(validateParams('w', schema, { inputs: ['x.csv'] })).toEqual({ inputs: ['x.csv'], size: 8, mode: 'exact', variants: ['a'], verbose: false })
  })

  it('keeps given values and puts chosen variants in their declared order', () => {
    const p = validateParams('w', schema, { inputs: ['x.csv'], size: 64, scale: 0.5, mode: 'fast', variants: ['c', 'a', 'c'], names: ['n1'], verbose: true })
    expect(p).toEqual({ inputs: ['x.csv'], size: 64, scale: 0.5, mode: 'fast', variants: ['a', 'c'], names: ['n1'], verbose: true })
  })

  it.each([
    [{ inputs: ['x'], size: 65 }, 'w: parameter size must be an integer in 1…64; got 65'],
    [{ inputs: ['x'], size: 2.5 }, 'w: parameter size must be an integer in 1…64; got 2.5'],
    [{ inputs: ['x'], size: '8' }, 'w: parameter size must be an integer in 1…64; got "8"'],
    [{ inputs: ['x'], scale: Number.NaN }, 'w: parameter scale must be a number in 0…1; got null'],
    [{ inputs: ['x'], mode: 'slow' }, 'w: parameter mode must be one of fast, exact; got "slow"'],
    [{ inputs: ['x'], variants: [] }, 'w: parameter variants must be a non-empty list of a, b, c; got []'],
    [{ inputs: ['x'], names: ['a', 'a'] }, 'w: parameter names must be a list of distinct, non-empty names; got ["a","a"]'],
    [{ inputs: ['x'], names: [''] }, 'w: parameter names must be a list of distinct, non-empty names; got [""]'],
    [{ inputs: [] }, 'w: parameter inputs must be a non-empty list of file paths; got []'],
    [{ inputs: ['a\0b'] }, 'w: parameter inputs must be a non-empty list of file paths; got ["a\\u0000b"]'],
    [{ size: 1 }, 'w: parameter inputs is required (a non-empty list of file paths)'],
    [{ inputs: ['x'], sise: 1 }, 'w: unknown parameter "sise"; known: inputs, size, scale, mode, variants, names, verbose, readMb'],
    [{ inputs: ['x'], verbose: 'yes' }, 'w: parameter verbose must be true or false; got "yes"'],
    [null, 'w: parameters must be an object; got null'],
  ])('rejects %j', (input, message) => {
    expect(() => validateParams('w', schema, input)).toThrow(message)
  })

  it('quotes a huge bad value only in part', () => {
    const err = (() => {
      try {
        validateParams('w', schema, { inputs: ['x'], mode: 'y'.repeat(100_000) })
      } catch (e) {
        return e as Error
      }
    })()
    expect(err?.message.length).toBeLessThan(200)
  })

  it('does not take parameters from the prototype chain', () => {
    expect(() => validateParams('w', schema, { inputs: ['x'], constructor: 1 })).toThrow(/unknown parameter "constructor"/)
    expect(() => validateParams('w', schema, JSON.parse('{"inputs":["x"],"__proto__":{"size":3}}'))).toThrow(/unknown parameter "__proto__"/)
  })

  it('gives defaults, allowed values and flag names', () => {
    expect(defaultParams(schema)).toEqual({ size: 8, mode: 'exact', variants: ['a'], verbose: false })
    expect(allowedText(schema.size)).toBe('an integer in 1…64')
    expect(flagName('readMb', schema.readMb)).toBe('read-mb')
    expect(flagName('variants', schema.variants)).toBe('variant')
  })
})
