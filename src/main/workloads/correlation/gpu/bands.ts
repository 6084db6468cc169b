// How the GPU backend cuts a data set so that no buffer outgrows a binding: the series go in bands
// of rows, each band's series and centred series in their own buffers, and the matrix is computed
// pair of bands by pair of bands (I ≤ J) into output tiles read back one by one.
import { ApiError } from '../../../../shared/errors'
import { padTo } from '../cpu-layout'
import { MAX_BK, MAX_BLOCK } from './register-shapes'

/** Rows of a band are padded to the largest block a cross-product kernel computes. */
export const BLOCK_ROWS = MAX_BLOCK
/** Samples are padded for the largest step (and the vec4 loads) of the cross-products. */
export const SAMPLE_STEP = MAX_BK
/** Rows per band at most: a tile of 8192² f32 is 256 MiB. */
const MAX_BAND_ROWS = 8192

export interface Band {
  index: number
  /** First series. */
  row0: number
  rows: number
  /** rows padded to BLOCK_ROWS: the rows of its centred series and of its tiles. */
  rowsPad: number
}

export interface BandPlan {
  /** Padded samples: the row stride of the centred series. */
  k: number
  bands: Band[]
}

/**
 * Bands as large as the binding limit allows (the series as two f32 words, the centred series and a
 * tile must each fit one binding), or of `bandRows` (tests, to cross band edges with few series).
 */
export function planBands(m: number, n: number, maxBinding: number, bandRows?: number): BandPlan {
  const k = padTo(n, SAMPLE_STEP)
  const byData = Math.floor(maxBinding / (k * 4) / BLOCK_ROWS) * BLOCK_ROWS
  const byTile = Math.floor(Math.sqrt(maxBinding / 4) / BLOCK_ROWS) * BLOCK_ROWS
  if (bandRows !== undefined && (bandRows <= 0 || bandRows % BLOCK_ROWS !== 0)) throw new ApiError('invalid-argument', `band rows must be a positive multiple of ${BLOCK_ROWS}, got ${bandRows}`)
  const rows = Math.min(bandRows ?? MAX_BAND_ROWS, MAX_BAND_ROWS, byData, byTile)
  if (rows < BLOCK_ROWS)
    throw new ApiError('invalid-input', `series of ${n} samples are too long for this GPU: ${BLOCK_ROWS} of them (${((BLOCK_ROWS * k * 4) / 2 ** 20).toFixed(0)} MiB) exceed one binding of ${(maxBinding / 2 ** 20).toFixed(0)} MiB`)
  const bands: Band[] = []
  for (let row0 = 0; row0 < m; row0 += rows) {
    const r = Math.min(rows, m - row0)
    bands.push({ index: bands.length, row0, rows: r, rowsPad: padTo(r, BLOCK_ROWS) })
  }
  return { k, bands }
}

/** Pairs of bands (I ≤ J): the matrix's upper triangle in tiles. */
export function bandPairs(plan: BandPlan): [Band, Band][] {
  return plan.bands.flatMap((a, i) => plan.bands.slice(i).map((b) => [a, b] as [Band, Band]))
}
