// A large landslide grid built in memory for `bench landslide --tile R×C`: the DEM and the source
// repeated R × C times edge to edge, NODATA walls kept. Each copy's one-cell border ring becomes
// interior cells of the big grid (only the big grid's outer ring stays a fixed border), so the
// result is an ordinary grid that every backend runs as it is.
//
// The copies stay independent when the source holds nothing on the ring and no debris ever reaches
// a cell beside it in the original: ring cells then stay dry and still, in the original (a border)
// as in the copies (interior cells with no inflow, whose outflows are exactly 0). The f64 grid of
// the tiled run is then the original's f64 grid tiled, bit for bit: `tiledReference` computes it
// from one run of the small grid, checked step by step, instead of a long run of the large one.
import { throwIfAborted } from '../../../shared/cancel'
import { ApiError } from '../../../shared/errors'
import { MAX_RASTER_CELLS } from '../../io/geotiff/read-raster'
import type { LandslideInput } from './inputs'
import { initialState, ThreadSimulation } from './simulation'

export interface Tiling {
  rows: number
  cols: number
}

/** Copies down and across at most (the grid's own bound on cells applies besides). */
export const MAX_TILES = 1024

/** What a tiling's text must be, for messages. */
export const TILE_EXPECTED = `RxC with R and C whole numbers from 1 to ${MAX_TILES} (e.g. 12x14)`

/** Parses "RxC" (or "R×C"): copies down and across, each at least 1 and at most MAX_TILES. */
export function parseTiling(text: string): Tiling | undefined {
  const m = /^\s*(\d+)\s*[x×X]\s*(\d+)\s*$/.exec(text)
  if (!m) return undefined
  const t = { rows: Number(m[1]), cols: Number(m[2]) }
  return t.rows >= 1 && t.cols >= 1 && t.rows <= MAX_TILES && t.cols <= MAX_TILES ? t : undefined
}

/** `values` (rows × cols) repeated t.rows × t.cols times. */
export function tileValues<A extends Float64Array | Uint8Array>(values: A, rows: number, cols: number, t: Tiling): A {
  const bigCols = cols * t.cols
  const out = new (values.constructor as new (n: number) => A)(rows * t.rows * bigCols)
  for (let ti = 0; ti < t.rows; ti++)
    for (let i = 0; i < rows; i++) {
      const row = values.subarray(i * cols, (i + 1) * cols)
      const at = (ti * rows + i) * bigCols
      for (let tj = 0; tj < t.cols; tj++) out.set(row, at + tj * cols)
    }
  return out
}

/**
 * The input repeated t.rows × t.cols times, the files' grid the north-west copy: the header names
 * the new size and its lower-left corner, the georeferencing (anchored at the north-west corner)
 * and the CRS are kept, so grids written from the run lie where the tiled grid does.
 */
export function tileInput(input: LandslideInput, t: Tiling): LandslideInput {
  const rows = input.rows * t.rows
  const cols = input.cols * t.cols
  // Refused before anything is allocated: the bound a GeoTIFF raster has.
  if (rows * cols > MAX_RASTER_CELLS)
    throw new ApiError(
      'invalid-argument',
      `tile ${t.rows}x${t.cols} of the ${input.rows} × ${input.cols} grid makes ${rows} × ${cols} = ${rows * cols} cells, more than the ${MAX_RASTER_CELLS} a grid may have`,
    )
  // The copies extend south: the lower-left corner moves down by the rows added.
  const down = (rows - input.rows) * input.header.cellsize
  const entries = input.header.entries.map(([k, v]): [string, string] =>
    /^nrows$/i.test(k) ? [k, String(rows)] : /^ncols$/i.test(k) ? [k, String(cols)] : /^yll(corner|center)$/i.test(k) ? [k, String(Number(v) - down)] : [k, v],
  )
  return {
    ...input,
    rows,
    cols,
    header: { ...input.header, nrows: rows, ncols: cols, yllcorner: input.header.yllcorner - down, entries },
    z: tileValues(input.z, input.rows, input.cols, t),
    h: tileValues(input.h, input.rows, input.cols, t),
    walls: input.walls && tileValues(input.walls, input.rows, input.cols, t),
    wallCount: input.wallCount * t.rows * t.cols,
    tile: { rows: t.rows, cols: t.cols },
  }
}

/** The ring's cells (k of the border), then the interior cells beside them. */
function ringAndInner(rows: number, cols: number): { ring: number[]; inner: number[] } {
  const ring: number[] = []
  const inner: number[] = []
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      const edge = Math.min(i, j, rows - 1 - i, cols - 1 - j)
      if (edge === 0) ring.push(i * cols + j)
      else if (edge === 1) inner.push(i * cols + j)
    }
  return { ring, inner }
}

/**
 * The f64 thickness of the tiled grid after `steps`, from an `active` run of the original, or why
 * the copies may touch (debris on or beside the ring): then only a run of the tiled grid gives it.
 */
export async function tiledReference(
  input: LandslideInput,
  t: Tiling,
  steps: number,
  signal?: AbortSignal,
): Promise<{ grid: Float64Array } | { touching: string }> {
  const { rows, cols } = input
  const { ring, inner } = ringAndInner(rows, cols)
  if (ring.some((k) => input.h[k] !== 0)) return { touching: 'the source holds debris on the grid\'s border' }
  const sim = new ThreadSimulation(initialState(input), true)
  try {
    const dry = (h: Float64Array) => inner.every((k) => h[k] === 0)
    if (!dry(await sim.thickness())) return { touching: 'debris lies beside the grid\'s border' }
    // Step by step: debris beside the ring at any step could flow into it.
    while (sim.done < steps) {
      if (sim.done % 256 === 0) throwIfAborted(signal)
      await sim.advance(1)
      if (!dry(await sim.thickness())) return { touching: `debris reaches the cells beside the grid's border at step ${sim.done}` }
    }
    return { grid: tileValues((await sim.thickness()).slice(), rows, cols, t) }
  } finally {
    await sim.dispose()
  }
}
