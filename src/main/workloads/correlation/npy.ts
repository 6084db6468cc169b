// NumPy's .npy format, versions 1.0 and 2.0: a magic string, a version, the length of a header that
// is a Python dict literal ({'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }), padded with
// spaces and a line feed so that the data starts on a 64-byte boundary, then the data in C order.
import { ApiError } from '../../../shared/errors'

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59] // \x93NUMPY
/** The data starts at a multiple of this (NumPy aligns to 64 bytes since 1.14, 16 before). */
export const NPY_ALIGN = 64

export type NpyDtype = '<f4' | '<f8'

export interface NpyHeader {
  version: 1 | 2
  descr: string
  fortranOrder: boolean
  shape: number[]
  /** Offset of the first data byte. */
  dataOffset: number
}

/** Bytes before the header text: magic, version, and the header length (2 bytes in 1.0, 4 in 2.0). */
export function npyPreamble(version: 1 | 2): number {
  return version === 1 ? 10 : 12
}

/**
 * Parses the header at the start of `head` (which holds at least its first 12 bytes, and the
 * whole header when `headerLength` says it is complete). Errors name `path`.
 */
export function parseNpyHeader(path: string, head: Uint8Array): NpyHeader | { needs: number } {
  const bad = (why: string) => new ApiError('invalid-input', `${path}: not a NumPy .npy file: ${why}`)
  if (head.length < 10 || MAGIC.some((b, i) => head[i] !== b)) throw bad('it does not start with \\x93NUMPY')
  const [major, minor] = [head[6], head[7]]
  if ((major !== 1 && major !== 2) || minor !== 0) throw new ApiError('invalid-input', `${path}: .npy format version ${major}.${minor}; versions 1.0 and 2.0 are read`)
  const version = major as 1 | 2
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  if (head.length < npyPreamble(version)) return { needs: npyPreamble(version) }
  const length = version === 1 ? view.getUint16(8, true) : view.getUint32(8, true)
  if (length > NPY_MAX_HEADER_BYTES) throw bad(`its header is ${length} bytes long; a header of at most ${NPY_MAX_HEADER_BYTES} bytes is read`)
  const dataOffset = npyPreamble(version) + length
  if (head.length < dataOffset) return { needs: dataOffset }
  const text = new TextDecoder('latin1').decode(head.subarray(npyPreamble(version), dataOffset))
  const dict = parseDictLiteral(text, bad)
  const descr = dict.get('descr')
  const fortran = dict.get('fortran_order')
  const shape = dict.get('shape')
  if (typeof descr !== 'string' || typeof fortran !== 'boolean' || !Array.isArray(shape))
    throw bad(`its header ${JSON.stringify(text.trim().slice(0, 120))} lacks descr, fortran_order or shape`)
  return { version, descr, fortranOrder: fortran, shape, dataOffset }
}

/** Header bytes read at most: NumPy writes a few hundred for any array of plain floats (and reads at most 10 000 by default). */
export const NPY_MAX_HEADER_BYTES = 64 * 1024

type PyValue = string | boolean | number | number[]

/**
 * The header's dict literal, read in one pass (a regular expression over it could take time
 * quadratic in its length): string keys, values that are strings, True/False, integers or tuples
 * of integers. A key given twice keeps its last value, as Python's dict does.
 */
function parseDictLiteral(text: string, bad: (why: string) => ApiError): Map<string, PyValue> {
  let at = 0
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at])) at++
  }
  const fail = (what: string): never => {
    throw bad(`its header has ${what} at character ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))}`)
  }
  const expect = (c: string) => {
    space()
    if (text[at] !== c) fail(`no ${JSON.stringify(c)}`)
    at++
  }
  const str = (): string => {
    const quote = text[at]
    const end = text.indexOf(quote, at + 1)
    if (end < 0) fail('an unterminated string')
    const s = text.slice(at + 1, end)
    at = end + 1
    return s
  }
  const int = (): number => {
    const start = at
    while (at < text.length && /[0-9]/.test(text[at])) at++
    if (at === start) fail('no number')
    const v = Number(text.slice(start, at))
    if (text[at] === 'L') at++ // Python 2's long
    if (!Number.isSafeInteger(v)) fail(`a number too large (${text.slice(start, at)})`)
    return v
  }
  const value = (): PyValue => {
    space()
    const c = text[at]
    if (c === "'" || c === '"') return str()
    if (text.startsWith('True', at)) return (at += 4), true
    if (text.startsWith('False', at)) return (at += 5), false
    if (c === '(') {
      at++
      const items: number[] = []
      for (;;) {
        space()
        if (text[at] === ')') break
        items.push(int())
        space()
        if (text[at] === ',') at++
        else if (text[at] !== ')') fail('no "," or ")" in a tuple')
      }
      at++
      return items
    }
    return int()
  }
  const dict = new Map<string, PyValue>()
  expect('{')
  for (;;) {
    space()
    if (text[at] === '}') break
    if (text[at] !== "'" && text[at] !== '"') fail('no key')
    const key = str()
    expect(':')
    dict.set(key, value())
    space()
    if (text[at] === ',') at++
    else if (text[at] !== '}') fail('no "," or "}"')
  }
  return dict
}

/** The header of an array of `shape` and `dtype`, C order, padded so the data starts at a multiple of 64 bytes. */
export function npyHeader(dtype: NpyDtype, shape: number[]): Uint8Array {
  const dict = `{'descr': '${dtype}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`
  // Version 1.0 unless the header outgrows its 2-byte length.
  const version: 1 | 2 = npyPreamble(1) + dict.length + 1 < 65536 ? 1 : 2
  const pre = npyPreamble(version)
  const total = Math.ceil((pre + dict.length + 1) / NPY_ALIGN) * NPY_ALIGN
  const out = new Uint8Array(total)
  out.set(MAGIC)
  out[6] = version
  out[7] = 0
  const view = new DataView(out.buffer)
  if (version === 1) view.setUint16(8, total - pre, true)
  else view.setUint32(8, total - pre, true)
  const text = dict + ' '.repeat(total - pre - dict.length - 1) + '\n'
  for (let i = 0; i < text.length; i++) out[pre + i] = text.charCodeAt(i)
  return out
}
