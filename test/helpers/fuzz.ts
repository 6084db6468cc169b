// Property-based fuzzing of file readers (fast-check): mutations of a valid file — flipped bytes,
// truncations, 32- and 64-bit fields set to boundary counts — each of which must end in the
// reference result or a clean refusal (an ApiError naming the file), within a time and memory bound.
// Seeded and reproducible: PARALAB_FUZZ_RUNS sets the cases per property (default 100, for
// `npm test`), PARALAB_FUZZ_SEED the seed (default fixed); a failure prints both to replay it.
import fc from 'fast-check'
import { expect } from 'vitest'
import { ApiError } from '../../src/shared/errors'

export const FUZZ_RUNS = Number(process.env.PARALAB_FUZZ_RUNS ?? 100)
export const FUZZ_SEED = Number(process.env.PARALAB_FUZZ_SEED ?? 20261202)
/** fast-check's parameters for one property: seeded, FUZZ_RUNS cases, the seed printed on failure. */
export const fuzzParams = (runs = FUZZ_RUNS): fc.Parameters<unknown> => ({ numRuns: runs, seed: FUZZ_SEED, endOnFailure: true })

/** Counts at the boundaries every reader must bound: 0, 2²⁹, 2³¹ − 1, 2³² − 1, and their neighbours. */
export const BOUNDARY_COUNTS = [0, 1, 2 ** 29, 2 ** 29 + 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1] as const
/** The same as 64-bit values, with 2³² itself and the largest. */
export const BOUNDARY_COUNTS_64 = [...BOUNDARY_COUNTS.map(BigInt), 2n ** 32n, 2n ** 53n, 2n ** 63n - 1n, 2n ** 64n - 1n] as const

export type Mutation =
  | { kind: 'flip'; at: number; value: number }
  | { kind: 'truncate'; length: number }
  | { kind: 'u32'; at: number; value: number; little: boolean }
  | { kind: 'u64'; at: number; value: bigint; little: boolean }

/** Mutations of a file of `size` bytes; `from` keeps them past a prefix (a magic number) when asked. */
export function mutationArb(size: number, from = 0): fc.Arbitrary<Mutation[]> {
  const at = fc.integer({ min: Math.min(from, size - 1), max: Math.max(0, size - 1) })
  const one: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at, value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('truncate' as const), length: fc.integer({ min: 0, max: Math.max(0, size - 1) }) }),
    fc.record({ kind: fc.constant('u32' as const), at, value: fc.constantFrom(...BOUNDARY_COUNTS), little: fc.boolean() }),
    fc.record({ kind: fc.constant('u64' as const), at, value: fc.constantFrom(...BOUNDARY_COUNTS_64), little: fc.boolean() }),
  )
  return fc.array(one, { minLength: 1, maxLength: 4 })
}

/** A mutated copy of `bytes` (the original is left as it is). */
export function mutate(bytes: Uint8Array, mutations: Mutation[]): Uint8Array {
  let out = Uint8Array.from(bytes)
  for (const m of mutations) {
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength)
    if (m.kind === 'flip' && m.at < out.length) out[m.at] = m.value
    else if (m.kind === 'truncate') out = out.slice(0, Math.min(m.length, out.length))
    else if (m.kind === 'u32' && m.at + 4 <= out.length) view.setUint32(m.at, m.value >>> 0, m.little)
    else if (m.kind === 'u64' && m.at + 8 <= out.length) view.setBigUint64(m.at, m.value & (2n ** 64n - 1n), m.little)
  }
  return out
}

export type Outcome<T> = { ok: T } | { refused: ApiError }

/**
 * Runs a read and judges how it ended: a result, or an ApiError whose message names `name` (the
 * file). Anything else thrown — a TypeError, a RangeError from a library, a bare Error — fails, as
 * does a read that takes longer than `ms` or grows the process's resident memory (loader threads
 * included) or this thread's heap and array buffers by more than `bytes`.
 */
export async function cleanOutcome<T>(name: string, read: () => Promise<T>, bounds: { ms?: number; bytes?: number } = {}): Promise<Outcome<T>> {
  const ms = bounds.ms ?? 10_000
  const limit = bounds.bytes ?? 512 * 2 ** 20
  const used = () => {
    const m = process.memoryUsage()
    return [m.rss, m.heapUsed + m.arrayBuffers]
  }
  const before = used()
  const peak = [...before]
  const sample = () => used().forEach((v, i) => (peak[i] = Math.max(peak[i], v)))
  const sampler = setInterval(sample, 20)
  let timer: NodeJS.Timeout | undefined
  const t0 = performance.now()
  try {
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${name}: still reading after ${ms} ms`)), ms)))
    const result = await Promise.race([read(), timeout])
    return { ok: result }
  } catch (e) {
    if (!(e instanceof ApiError)) throw new Error(`${name}: ended in ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}, not a refusal`)
    expect(e.message, 'a refusal names the file').toContain(name)
    return { refused: e }
  } finally {
    clearTimeout(timer)
    clearInterval(sampler)
    sample()
    const grew = Math.max(peak[0] - before[0], peak[1] - before[1])
    if (grew > limit) throw new Error(`${name}: memory grew ${(grew / 2 ** 20).toFixed(0)} MiB (bound ${(limit / 2 ** 20).toFixed(0)} MiB) in ${(performance.now() - t0).toFixed(0)} ms`)
  }
}
