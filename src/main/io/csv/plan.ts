// How the loader cuts a file and how many threads it uses, bounded by memory rather than cores.
//
// Each thread costs its own heap (WORKER_BASE_BYTES) and has two chunk slots, each holding one
// range's values between parsing the range and placing it (ordered-columns.ts). Threads and range size are
// chosen so that all threads together stay within a budget whatever the core count: as many
// threads as fit with the smallest ranges, then ranges as long as the rest of the budget allows.
import type { FileHandle } from 'node:fs/promises'
import { WORKER_BASE_BYTES, threadsForMemory } from '../../workers/memory'

/** Memory the loader's threads may take together, besides the columns. */
export const LOADER_THREADS_BUDGET_BYTES = 192 * 1024 * 1024
/** Ranges are at most this long: a few per thread keep the threads evenly busy. */
export const MAX_RANGE_BYTES = 16 * 1024 * 1024
/** … and at least this long, so that per-range costs (a task, an open file) stay small. */
export const MIN_RANGE_BYTES = 256 * 1024
/** Ranges per thread at least, where the file is long enough: threads finish close together. */
export const RANGES_PER_THREAD = 4
/** Bytes of data read to estimate the values per byte. */
export const PROBE_BYTES = 1024 * 1024
/** Chunk slots per thread. */
export const SLOTS_PER_THREAD = 2

export interface LoadPlanInput {
  /** Bytes of data (after the header). */
  dataBytes: number
  /** Threads wanted (cores, or the caller's choice). */
  threads: number
  /** Values per byte of data, over the columns loaded (estimated from the file's start). */
  valuesPerByte: number
  /** A range size the caller chose (tests, tuning): used as it is, and threads as asked. */
  rangeBytes?: number
  budgetBytes?: number
}

export interface LoadPlan {
  rangeBytes: number
  /** Threads to start: no more than the ranges, nor than the memory budget allows. */
  threads: number
  /** Estimated chunk memory of all threads' slots together. */
  chunkBytes: number
}

export function planLoad(input: LoadPlanInput): LoadPlan {
  const budget = input.budgetBytes ?? LOADER_THREADS_BUDGET_BYTES
  // A range's values take 8 bytes each; guard against an estimate of zero (a probe of blank lines).
  const perRangeByte = 8 * Math.max(input.valuesPerByte, 1e-6)
  let threads = input.threads
  let rangeBytes = input.rangeBytes
  if (rangeBytes === undefined) {
    threads = threadsForMemory(threads, WORKER_BASE_BYTES + SLOTS_PER_THREAD * MIN_RANGE_BYTES * perRangeByte, budget)
    const chunkBudget = budget - threads * WORKER_BASE_BYTES
    const fit = Math.floor(chunkBudget / (SLOTS_PER_THREAD * threads * perRangeByte))
    const spread = Math.ceil(input.dataBytes / (threads * RANGES_PER_THREAD))
    rangeBytes = Math.min(MAX_RANGE_BYTES, Math.max(MIN_RANGE_BYTES, Math.min(fit, spread)))
  }
  const ranges = Math.max(1, Math.ceil(input.dataBytes / rangeBytes))
  threads = Math.max(1, Math.min(threads, ranges))
  return { rangeBytes, threads, chunkBytes: Math.round(SLOTS_PER_THREAD * threads * Math.min(rangeBytes, input.dataBytes) * perRangeByte) }
}

/** Lines per byte in the first PROBE_BYTES of [start, end): one row's share of the data. */
export async function lineDensity(file: FileHandle, start: number, end: number): Promise<number> {
  const length = Math.min(PROBE_BYTES, end - start)
  if (length <= 0) return 0
  const probe = Buffer.allocUnsafe(length)
  const { bytesRead } = await file.read(probe, 0, length, start)
  if (bytesRead === 0) return 0
  let lines = 0
  for (let at = probe.indexOf(10, 0); at >= 0 && at < bytesRead; at = probe.indexOf(10, at + 1)) lines++
  return Math.max(lines, 1) / bytesRead
}
