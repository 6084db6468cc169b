// An LZ4 compressor for tests, as the format defines it (greedy, a 4-byte hash): blocks with real
// matches, overlapping ones (a repeated pattern) and, in a frame of linked blocks, matches into the
// blocks before; frames with or without their checksums (xxHash32, checked by its published
// vectors in the tests that use it). What Arrow C++ writes (linked 64 KiB blocks) without Arrow C++.
import { xxh32 } from '../../src/main/io/lz4'

const read32 = (b: Uint8Array, p: number) => b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)

function length(out: number[], n: number): void {
  for (; n >= 255; n -= 255) out.push(255)
  out.push(n)
}

/** An LZ4 block of input[from…to), its matches reaching back as far as input[windowStart]. */
export function lz4Block(input: Uint8Array, from = 0, to = input.length, windowStart = from): Uint8Array {
  const out: number[] = []
  const table = new Map<number, number>()
  for (let p = Math.max(windowStart, from - 65535); p + 4 <= from; p++) table.set(read32(input, p), p)
  const sequence = (anchor: number, p: number, offset: number, match: number) => {
    const literals = p - anchor
    out.push((Math.min(literals, 15) << 4) | (match ? Math.min(match - 4, 15) : 0))
    if (literals >= 15) length(out, literals - 15)
    for (let k = anchor; k < p; k++) out.push(input[k])
    if (!match) return
    out.push(offset & 0xff, offset >> 8)
    if (match - 4 >= 15) length(out, match - 19)
  }
  let anchor = from
  // The format's end rules: the last match starts 12 bytes or more before the end, the last 5 bytes are literals.
  for (let p = from; p + 12 <= to; ) {
    const key = read32(input, p)
    const candidate = table.get(key)
    table.set(key, p)
    if (candidate !== undefined && candidate >= windowStart && p - candidate <= 65535 && read32(input, candidate) === key) {
      let match = 4
      while (p + match < to - 5 && input[candidate + match] === input[p + match]) match++
      sequence(anchor, p, p - candidate, match)
      p += match
      anchor = p
    } else p++
  }
  sequence(anchor, to, 0, 0)
  return Uint8Array.from(out)
}

/** An LZ4 frame of blocks of at most 64 KiB, linked (matches into the blocks before) or independent, with or without its checksums. */
export function lz4Frame(input: Uint8Array, opts: { linked: boolean; checksums: boolean }): Uint8Array {
  const parts: Uint8Array[] = []
  const u32 = (v: number) => {
    const b = new Uint8Array(4)
    new DataView(b.buffer).setUint32(0, v >>> 0, true)
    return b
  }
  const flags = 0x40 | (opts.linked ? 0 : 0x20) | (opts.checksums ? 0x10 | 0x08 | 0x04 : 0)
  const descriptor = [flags, 0x40]
  if (opts.checksums) for (let k = 0; k < 8; k++) descriptor.push(k < 4 ? (input.length >>> (8 * k)) & 0xff : 0)
  const header = Uint8Array.from([0x04, 0x22, 0x4d, 0x18, ...descriptor])
  parts.push(header, Uint8Array.of((xxh32(header, 4, header.length) >>> 8) & 0xff))
  for (let from = 0; from < input.length; from += 65536) {
    const to = Math.min(input.length, from + 65536)
    const block = lz4Block(input, from, to, opts.linked ? 0 : from)
    // A block that does not shrink is stored as it is (the size's high bit set).
    const stored = block.length >= to - from
    const data = stored ? input.subarray(from, to) : block
    parts.push(u32(data.length | (stored ? 0x80000000 : 0)), data)
    if (opts.checksums) parts.push(u32(xxh32(data, 0, data.length)))
  }
  parts.push(u32(0))
  if (opts.checksums) parts.push(u32(xxh32(input, 0, input.length)))
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
