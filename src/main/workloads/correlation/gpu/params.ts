// The uniform every correlation kernel reads (struct Params in shaders/correlation/common.wgsl).

export interface KernelParams {
  rows: number
  n: number
  k: number
  row0: number
  rowsJ?: number
  row0J?: number
  diag?: boolean
  blocks?: number
  blocksJ?: number
  strideC?: number
  /** The first workgroup of a dispatch submitted in pieces (rows of workgroups for the coefficients). */
  first?: number
}

export const PARAMS_WORDS = 12
/** Byte offset of `first`, rewritten before each piece. */
export const FIRST_OFFSET = 11 * 4

export function paramsWords(p: KernelParams): Uint32Array {
  return Uint32Array.of(p.rows, p.n, p.k, p.row0, p.rowsJ ?? 0, p.row0J ?? 0, p.diag ? 1 : 0, p.blocks ?? 0, p.blocksJ ?? 0, p.strideC ?? 0, 0, p.first ?? 0)
}
