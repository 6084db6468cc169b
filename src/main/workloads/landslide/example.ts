// The example's input, made on the user's machine: a seeded synthetic slope as two ESRI ASCII grids.
// A valley descends southward, levelling out at its foot, with a little roughness; a debris source lies near the top and a
// walled-off quarry (NODATA) stands in the flow's way, so the example exercises walls too.
import { join } from 'node:path'
import { writeFileAtomic } from '../../io/atomic-write'

export const EXAMPLE_ROWS = 120
export const EXAMPLE_COLS = 160
const NODATA = -9999
const CELLSIZE = 10

/** mulberry32: a small seeded generator, the same numbers on every platform. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface SyntheticSlope {
  rows: number
  cols: number
  dem: string
  source: string
}

function header(rows: number, cols: number): string {
  return `ncols        ${cols}\nnrows        ${rows}\nxllcorner    500000.0\nyllcorner    4000000.0\ncellsize     ${CELLSIZE}.0\nNODATA_value ${NODATA}\n`
}

/** The DEM and the source as .asc text, the same for the same seed and size. */
export function syntheticSlope(seed = 1, rows = EXAMPLE_ROWS, cols = EXAMPLE_COLS): SyntheticSlope {
  const next = random(seed)
  // Roughness: a coarse random field (one value per 8 × 8 cells) interpolated, so the flow meanders.
  const cr = Math.ceil(rows / 8) + 2
  const cc = Math.ceil(cols / 8) + 2
  const coarse = Array.from({ length: cr * cc }, () => next() - 0.5)
  const rough = (i: number, j: number) => {
    const y = i / 8
    const x = j / 8
    const y0 = Math.floor(y)
    const x0 = Math.floor(x)
    const fy = y - y0
    const fx = x - x0
    const at = (a: number, b: number) => coarse[a * cc + b]
    return (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x0 + 1)) + fy * ((1 - fx) * at(y0 + 1, x0) + fx * at(y0 + 1, x0 + 1))
  }
  const quarry = (i: number, j: number) => i >= rows * 0.55 && i < rows * 0.65 && j >= cols * 0.46 && j < cols * 0.56
  const dem: string[] = []
  const source: string[] = []
  const centre = { i: rows * 0.12, j: cols * 0.45 }
  for (let i = 0; i < rows; i++) {
    const demRow: string[] = []
    const sourceRow: string[] = []
    for (let j = 0; j < cols; j++) {
      const across = (j - cols * 0.45) / cols
      // Steep at the top, levelling out into a runout basin at the foot, where the debris comes to rest.
      const down = 1 - i / rows
      const lip = Math.max(0, 0.2 - down)
      const z = 400 + 260 * down * down + 400 * lip * lip + 120 * across * across + 4 * rough(i, j)
      demRow.push(quarry(i, j) ? String(NODATA) : z.toFixed(3))
      const d = ((i - centre.i) / (rows * 0.06)) ** 2 + ((j - centre.j) / (cols * 0.06)) ** 2
      sourceRow.push(d < 1 ? (3 * (1 - d) * (0.8 + 0.4 * next())).toFixed(4) : '0')
    }
    dem.push(demRow.join(' '))
    source.push(sourceRow.join(' '))
  }
  return { rows, cols, dem: header(rows, cols) + dem.join('\n') + '\n', source: header(rows, cols) + source.join('\n') + '\n' }
}

/** Writes the example's two grids into `dir` under `names` (DEM, source), each whole or not at all. */
export async function writeExample(dir: string, names: readonly string[]): Promise<void> {
  const slope = syntheticSlope()
  await writeFileAtomic(join(dir, names[0]), slope.dem, { overwrite: true })
  await writeFileAtomic(join(dir, names[1]), slope.source, { overwrite: true })
}
