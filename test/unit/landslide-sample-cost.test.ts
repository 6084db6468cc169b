// A sample of a big grid with a small slide costs about one pass over it: sampleGrid counts the
// active cells only around each row's debris, and the reference md5 hashes an all-dry row's text
// made once. Both must give exactly what the straightforward forms give: the same totals (the mass
// summed in the same order) and the same md5, on grids with walls, -0, NaN and debris at the edges.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { P_EPSILON } from '../../src/shared/workloads/landslide/types'
import { sampleGrid } from '../../src/main/workloads/landslide/grid-stats'
import { referenceMd5, referenceRowBytes, referenceText } from '../../src/main/workloads/landslide/reference-format'

/** sampleGrid as it was: every interior cell's neighbourhood tested. */
function everyCell(h: Float64Array, rows: number, cols: number, walls: Uint8Array | null) {
  let mass = 0
  let flooded = 0
  let max = 0
  let active = 0
  for (let k = 0; k < rows * cols; k++) {
    const v = h[k]
    mass += v
    if (v > P_EPSILON) flooded++
    if (v > max) max = v
  }
  for (let i = 1; i < rows - 1; i++)
    for (let j = 1; j < cols - 1; j++) {
      const k = i * cols + j
      if (walls?.[k]) continue
      if (h[k] !== 0 || (i > 1 && h[k - cols] !== 0) || (j > 1 && h[k - 1] !== 0) || (j < cols - 2 && h[k + 1] !== 0) || (i < rows - 2 && h[k + cols] !== 0)) active++
    }
  return { mass, flooded, max_thickness: max, active }
}

/** A seeded grid: mostly dry, debris in patches (some on the border), walls, a -0 and an odd value. */
function grid(seed: number, rows: number, cols: number, special = false) {
  let s = seed
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const h = new Float64Array(rows * cols)
  const walls = new Uint8Array(rows * cols)
  for (let p = 0; p < 6; p++) {
    const [i0, j0] = [Math.floor(rand() * rows), Math.floor(rand() * cols)]
    for (let i = i0; i < Math.min(rows, i0 + 4); i++) for (let j = j0; j < Math.min(cols, j0 + 5); j++) h[i * cols + j] = rand() < 0.7 ? rand() * 3 : 0
  }
  for (let k = 0; k < rows * cols; k++) if (rand() < 0.05) walls[k] = 1
  if (special) {
    h[cols + 1] = -0
    h[2 * cols + 3] = NaN
    h[rows * cols - 1] = 1e-5
  }
  return { h, walls }
}

describe('a sample of the grid', () => {
  it('counts what every cell\'s neighbourhood gives, with walls or without, debris on the border, -0 and NaN', () => {
    for (const [rows, cols] of [[1, 1], [2, 3], [3, 3], [5, 7], [40, 33], [97, 120]])
      for (let seed = 1; seed <= 20; seed++) {
        const { h, walls } = grid(seed, rows, cols, seed % 4 === 0)
        for (const w of [walls, null]) expect(sampleGrid(h, rows, cols, w), `${rows} × ${cols}, seed ${seed}`).toEqual(everyCell(h, rows, cols, w))
      }
  })

  it('gives the md5 of the reference text and its rows\' bytes, all-dry rows and -0 cells included', () => {
    for (const [rows, cols] of [[1, 1], [6, 4], [40, 33]])
      for (let seed = 1; seed <= 10; seed++) {
        const { h } = grid(seed, rows, cols, seed % 2 === 0 && rows > 3)
        if (seed === 3) h[0] = -0
        const md5 = createHash('md5').update(referenceText(h, rows, cols)).digest('hex')
        expect(referenceMd5(h, rows, cols), `${rows} × ${cols}, seed ${seed}`).toBe(md5)
        // What `simulate --output` writes, row by row.
        expect(Buffer.concat([...referenceRowBytes(h, rows, cols)]).toString(), `${rows} × ${cols}, seed ${seed}`).toBe(referenceText(h, rows, cols))
      }
  })
})
