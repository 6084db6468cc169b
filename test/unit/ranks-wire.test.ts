// The ranks' frames read back from hostile bytes: a header is judged before its payload is read
// (unknown kind or element type, spare bytes, lengths beyond what the connection carries), the
// reader never throws and reads nothing after a bad header; frames split anywhere come back whole.
import { describe, expect, it } from 'vitest'
import { FrameReader, Kind, MAX_FRAME_BYTES, MAX_HANDSHAKE_BYTES, frame, textFrame, type Frame } from '../../src/main/ranks/wire'

function reader() {
  const frames: Frame[] = []
  const invalid: string[] = []
  const r = new FrameReader((f) => frames.push(f), (why) => invalid.push(why))
  return { r, frames, invalid }
}

const header = (length: number, kind: number, type: number, spare = 0, tag = 0) => {
  const b = Buffer.alloc(12)
  b.writeUInt32LE(length, 0)
  b.writeUInt8(kind, 4)
  b.writeUInt8(type, 5)
  b.writeUInt16LE(spare, 6)
  b.writeInt32LE(tag, 8)
  return b
}

describe('ranks wire', () => {
  it('refuses, without throwing, a header of unknown kind or element type, spare bytes, or a length beyond the bound', () => {
    const cases: [Buffer, RegExp][] = [
      [header(0, 3, 200), /a data frame of unknown element type 200/],
      [header(0, 99, 0), /a frame of unknown kind 99/],
      [header(0, 0, 0), /a frame of unknown kind 0/],
      [header(0, Kind.Bye, 0, 7), /spare header bytes are 7/],
      [header(4, Kind.Abort, 3), /kind 4 with element type 3/],
      [header(12, Kind.Data, 7), /12 bytes, not a whole number of Float64Array elements/],
      [header(0xfffffff0, Kind.Data, 0), new RegExp(`announcing 4294967280 bytes, more than the ${MAX_HANDSHAKE_BYTES} this connection carries before its hello is proved`)],
    ]
    for (const [bytes, why] of cases) {
      const { r, frames, invalid } = reader()
      expect(() => r.push(Buffer.concat([bytes, Buffer.alloc(64)]))).not.toThrow()
      expect(frames).toEqual([])
      expect(invalid).toHaveLength(1)
      expect(invalid[0]).toMatch(why)
      // Nothing after a bad header is read, however much comes.
      r.push(textFrame(Kind.Abort, 'later'))
      expect(frames).toEqual([])
      expect(invalid).toHaveLength(1)
    }
    const { r, invalid } = reader()
    r.maxBytes = MAX_FRAME_BYTES
    r.push(header(MAX_FRAME_BYTES + 1, Kind.Data, 0))
    expect(invalid[0]).toMatch(/more than the 1073741824 this connection carries$/)
  })

  it('reads frames split at every byte, and several in one chunk, as they were sent', () => {
    const sent = [frame(Kind.Data, 7, Float64Array.of(1.5, -2)), textFrame(Kind.Hello, { a: 1 }), frame(Kind.Data, -3, Int32Array.of(4, 5, 6)), frame(Kind.Ping, 0)]
    const all = Buffer.concat(sent)
    for (const step of [1, 5, 13, all.length]) {
      const { r, frames, invalid } = reader()
      for (let at = 0; at < all.length; at += step) r.push(all.subarray(at, at + step))
      expect(invalid).toEqual([])
      expect(frames.map((f) => f.kind)).toEqual([Kind.Data, Kind.Hello, Kind.Data, Kind.Ping])
      expect(frames[0].data).toEqual(Float64Array.of(1.5, -2))
      expect(frames[2]).toMatchObject({ tag: -3 })
      expect(frames[2].data).toEqual(Int32Array.of(4, 5, 6))
    }
  })

  it('paused after a frame, judges the next header only once resumed (with the bound then set)', () => {
    const big = frame(Kind.Data, 1, new Float64Array(1000))
    const { r, frames, invalid } = reader()
    const paused = new FrameReader(
      (f) => {
        frames.push(f)
        paused.pause()
      },
      (why) => invalid.push(why),
    )
    paused.push(Buffer.concat([frame(Kind.Welcome, 0, new Uint8Array(32)), big]))
    expect(frames).toHaveLength(1)
    paused.maxBytes = MAX_FRAME_BYTES
    paused.resume()
    expect(invalid).toEqual([])
    expect(frames).toHaveLength(2)
    expect(frames[1].data).toHaveLength(1000)
    // Unpaused, the same bytes meet the handshake's bound.
    r.push(Buffer.concat([frame(Kind.Welcome, 0, new Uint8Array(32)), big]))
    expect(invalid[0]).toMatch(/announcing 8000 bytes/)
  })

  it('a sender refuses a message larger than a frame carries', () => {
    const huge = { byteLength: MAX_FRAME_BYTES + 8 } as unknown as Float64Array
    expect(() => frame(Kind.Data, 0, huge)).toThrow(/larger than a frame carries/)
  })
})
