// What worker threads cost in memory, so that pools are sized by memory as well as by cores: on a
// machine with many cores, a thread per core would otherwise grow a job's peak memory without bound.

/**
 * Resident memory of one worker thread before its task's own data: its V8 isolate and Node
 * environment (~9 MB each measured with Node 20 on Linux, idle; a little more once working).
 */
export const WORKER_BASE_BYTES = 10 * 1024 * 1024

/** Threads of `perThreadBytes` each that fit `budgetBytes`: at least 1, at most `wanted`. */
export function threadsForMemory(wanted: number, perThreadBytes: number, budgetBytes: number): number {
  return Math.max(1, Math.min(wanted, Math.floor(budgetBytes / Math.max(perThreadBytes, 1))))
}
