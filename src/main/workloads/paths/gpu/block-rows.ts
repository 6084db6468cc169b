// How `--gpus N` splits the matrix: each device owns a run of whole 64-block rows, as even as can be,
// and the owner of a round's pivot block row is the device holding it.

export interface BlockRows {
  /** First block row owned, and one past the last. */
  b0: number
  b1: number
}

/** Block rows of each device: contiguous, none empty (fewer parts than devices when the matrix has fewer block rows). */
export function splitBlockRows(blockRows: number, devices: number): BlockRows[] {
  const n = Math.max(1, Math.min(devices, blockRows))
  return Array.from({ length: n }, (_, g) => ({ b0: Math.floor((g * blockRows) / n), b1: Math.floor(((g + 1) * blockRows) / n) }))
}

/** The part owning block row `block`. */
export function ownerOf(parts: readonly BlockRows[], block: number): number {
  const at = parts.findIndex((p) => block >= p.b0 && block < p.b1)
  if (at < 0) throw new RangeError(`block row ${block} is owned by no part`)
  return at
}
