// Philox 4×32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011): a
// counter-based generator. Four 32-bit words come from a counter and a key with no state between
// calls, so any thread can draw the numbers of any (series, index) directly, and the CPU and the
// GPU (shaders/correlation/philox.wgsl, the same arithmetic in u32) agree bit for bit.

const M0 = 0xd2511f53
const M1 = 0xcd9e8d57
const W0 = 0x9e3779b9
const W1 = 0xbb67ae85

/** The high and low words of the 64-bit product a · b, from 16-bit halves (exact in doubles). */
export function mulhilo(a: number, b: number): [number, number] {
  const al = a & 0xffff
  const ah = a >>> 16
  const bl = b & 0xffff
  const bh = b >>> 16
  const ll = al * bl
  const lh = al * bh
  const hl = ah * bl
  const mid = (ll >>> 16) + (lh & 0xffff) + (hl & 0xffff)
  const hi = (ah * bh + (lh >>> 16) + (hl >>> 16) + (mid >>> 16)) >>> 0
  const lo = ((mid << 16) | (ll & 0xffff)) >>> 0
  return [hi, lo]
}

/** Ten rounds over counter (c0…c3) with key (k0, k1); writes the four words into `out`. */
export function philox4x32(c0: number, c1: number, c2: number, c3: number, k0: number, k1: number, out: Uint32Array): void {
  for (let round = 0; round < 10; round++) {
    if (round > 0) {
      k0 = (k0 + W0) >>> 0
      k1 = (k1 + W1) >>> 0
    }
    const [hi0, lo0] = mulhilo(M0, c0)
    const [hi1, lo1] = mulhilo(M1, c2)
    c0 = (hi1 ^ c1 ^ k0) >>> 0
    c1 = lo1
    c2 = (hi0 ^ c3 ^ k1) >>> 0
    c3 = lo0
  }
  out[0] = c0
  out[1] = c1
  out[2] = c2
  out[3] = c3
}
