// Benchmark input: f32 values 0…3 in a scrambled pattern. Small integers keep every partial
// sum exact in f32, so the GPU's total must equal the host's, which proves every element was read.

export interface BenchData {
  data: Float32Array
  /** Exact sum of `data`. */
  sum: number
}

/** Largest value in the pattern: bounds the partial sums a kernel may accumulate in f32. */
export const MAX_VALUE = 3

export function benchData(bytes: number): BenchData {
  const data = new Float32Array(Math.floor(bytes / 4))
  let sum = 0
  for (let i = 0; i < data.length; i++) {
    const v = Math.imul(i, 0x9e3779b1) >>> 30 // top two bits of a Fibonacci hash: 0…3, no visible period
    data[i] = v
    sum += v
  }
  return { data, sum }
}
