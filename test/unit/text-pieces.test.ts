// Text encoded into fixed pieces as it is put: the bytes are TextEncoder's for any text (ASCII,
// accents, characters outside the BMP split across pieces), every piece but the last is full, and
// a piece once handed on is never written again.
import { describe, expect, it } from 'vitest'
import { TextPieces, textPieces } from '../../src/main/io/text-pieces'

const joined = (pieces: Iterable<Uint8Array>) => Buffer.concat([...pieces].map((p) => Buffer.from(p)))

describe('TextPieces', () => {
  it('gives TextEncoder\'s bytes, in full pieces but the last, for ASCII, accents and astral characters at any boundary', () => {
    const texts = ['r,s0,s1\n', 'naïve', ',', '0.123456789', '😀', 'x'.repeat(50), 'Ω', '\n', '日本語', '']
    for (const size of [4, 5, 7, 16, 64, 1 << 20]) {
      const counted = { bytes: 0 }
      const pieces = [...textPieces(texts, counted, size)]
      expect(joined(pieces).toString('utf8'), `pieces of ${size}`).toBe(texts.join(''))
      expect(counted.bytes).toBe(Buffer.byteLength(texts.join('')))
      // A multi-byte character may leave up to 3 bytes of a piece unused, never more.
      for (const p of pieces.slice(0, -1)) expect(p.length).toBeGreaterThan(size - 4)
    }
  })

  it('hands each full piece on once and never writes into it again', () => {
    const out = new TextPieces(8)
    out.put('abcdefgh12')
    const [first] = [...out.filled()]
    expect(Buffer.from(first).toString()).toBe('abcdefgh')
    const copy = Buffer.from(first)
    out.put('345678zzzzzzzz')
    const rest = [...out.rest()]
    expect(Buffer.from(first)).toEqual(copy)
    expect(joined(rest).toString()).toBe('12345678zzzzzzzz')
    expect([...out.rest()]).toEqual([])
  })

  it('with reuse, two buffers go round for a consumer that copies each piece before asking for the next', () => {
    const out = new TextPieces(16, undefined, true)
    const texts = Array.from({ length: 200 }, (_, i) => `${i * 0.1},`)
    const copies: Buffer[] = []
    const buffers = new Set<ArrayBufferLike>()
    const pieces = (function* () {
      for (const t of texts) {
        out.put(t)
        yield* out.filled()
      }
      yield* out.rest()
    })()
    for (const p of pieces) {
      copies.push(Buffer.from(p))
      buffers.add(p.buffer)
    }
    expect(Buffer.concat(copies).toString()).toBe(texts.join(''))
    expect(buffers.size).toBeLessThanOrEqual(3)
    expect(copies.length).toBeGreaterThan(50)
  })
})
