// B − A of two final thickness grids, worked out by hand on small grids: the sums and volumes, the
// cells that differ, max |Δh| and where, walls (as 1s or as NaN, the kept .npy's) compared as walls
// and never as 0 m, the same whatever the blocks of rows they come in; the map's window around where
// the grids differ, each map cell the largest |Δh| of its block with its sign; and its colours.
import { describe, expect, it } from 'vitest'
import { DifferenceMapper, DifferenceStats, type RowBlock } from '../../src/main/workloads/landslide/grid-difference'
import { differenceCellColors, differenceColor, differencePosition, differenceScale, BOTH_WALLS_COLOR, ONE_WALL_COLOR, paintDifference } from '../../src/shared/workloads/landslide/difference-frame'
import { frameLayout } from '../../src/shared/workloads/landslide/map-frame'
import { SvgPainter } from '../../src/shared/workloads/landslide/painters'

const N = NaN
/** A 3 × 4 pair: A has a wall at (0, 0) as NaN, B at (0, 0) and (2, 3) by its walls; (1, 1) dry in A, a wall in neither. */
const A = [N, 0, 0, 0, 0, 0, 1, 0.5, 0, 2, 2, 0]
const B = [0, 0, 0, 0, 0, 0.25, 1, 0.4999, 0, 0, 3, 7]
const B_WALLS = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]

/** The grids in blocks of `rows` rows, as the kept files are read. */
function blocks(a: number[], b: number[], cols: number, rows: number, bWalls: number[] | null = B_WALLS): RowBlock[] {
  const out: RowBlock[] = []
  for (let i0 = 0; i0 * cols < a.length; i0 += rows) {
    const [from, to] = [i0 * cols, Math.min(a.length, (i0 + rows) * cols)]
    out.push({ row0: i0, a: Float64Array.from(a.slice(from, to)), aWalls: null, b: Float64Array.from(b.slice(from, to)), bWalls: bWalls && Uint8Array.from(bWalls.slice(from, to)) })
  }
  return out
}

function statsOf(rowsPerBlock: number) {
  const s = new DifferenceStats(4)
  for (const block of blocks(A, B, 4, rowsPerBlock)) s.add(block)
  return s
}

describe('the difference of two grids', () => {
  it('sums each run over its own cells and counts the cells that differ, as worked out by hand', () => {
    const stats = statsOf(3).stats(10)
    // A: 1 + 0.5 + 2 + 2 (and (2, 3), a wall in B only, holds 0 in A); B: 0.25 + 1 + 0.4999 + 3, its walls left out.
    expect(stats.sum[0]).toBeCloseTo(5.5, 12)
    expect(stats.sum[1]).toBeCloseTo(4.7499, 12)
    expect(stats.volume[0]).toBeCloseTo(550, 9)
    expect(stats.volume[1]).toBeCloseTo(474.99, 9)
    // Cell by cell: +0.25, −0.0001, −2, +1; (2, 3) a wall in B only counts −A's 0.
    expect(stats.delta.sum).toBeCloseTo(-0.7501, 12)
    expect(stats.delta.volume).toBeCloseTo(-75.01, 9)
    // (0, 0) is a wall in both (NaN in A, a wall bit in B): neither compared nor counted as 0 m.
    expect(stats.walls).toEqual({ both: 1, onlyA: 0, onlyB: 1 })
    expect(stats.compared).toBe(10)
    expect(stats.differing).toBe(4)
    // |−0.0001| is within p_ε = 0.001 m.
    expect([stats.over, stats.threshold]).toEqual([3, 0.001])
    expect(stats.maxAbs).toBe(2)
    expect(stats.at).toEqual({ row: 2, col: 1, delta: -2 })
  })

  it('gives the same whatever blocks of rows the grids come in', () => {
    const whole = statsOf(3)
    for (const rows of [1, 2]) {
      const s = statsOf(rows)
      expect(s.stats(10)).toEqual(whole.stats(10))
      expect(s.window(3)).toEqual(whole.window(3))
    }
  })

  it('compares a wall with a wall, not with 0 m: a NaN cell against a dry one is a wall in one run only', () => {
    const s = new DifferenceStats(2)
    s.add({ row0: 0, a: Float64Array.of(NaN, 0, Infinity, 1), aWalls: null, b: Float64Array.of(0, 0, 0, 1), bWalls: null })
    const stats = s.stats(1)
    expect(stats.walls).toEqual({ both: 0, onlyA: 2, onlyB: 0 })
    expect([stats.compared, stats.differing, stats.maxAbs, stats.at]).toEqual([2, 0, 0, null])
    // Neither NaN nor ∞ reaches a sum.
    expect(stats.sum).toEqual([1, 1])
    expect(stats.delta.sum).toBe(0)
  })

  it('finds no difference between a grid and itself, and then maps the whole grid', () => {
    const s = new DifferenceStats(4)
    for (const block of blocks(A, A, 4, 2, null)) s.add(block)
    const stats = s.stats(5)
    expect([stats.differing, stats.over, stats.maxAbs, stats.at, stats.delta.sum]).toEqual([0, 0, 0, null, 0])
    expect(stats.walls).toEqual({ both: 1, onlyA: 0, onlyB: 0 })
    expect(s.window(3)).toEqual({ row0: 0, col0: 0, size: 4, block: 1 })
  })
})

describe('the difference map', () => {
  it('lies around where the grids differ, each map cell the largest |Δh| of its block with its sign', () => {
    // A 20 × 20 grid: B − A is +0.3 at (5, 6), −0.8 at (5, 7), +2 at (12, 14); B has a wall at (9, 9) A has not.
    const cols = 20
    const a = new Array(400).fill(0)
    const b = new Array(400).fill(0)
    const bWalls = new Array(400).fill(0)
    b[5 * cols + 6] = 0.3
    a[5 * cols + 7] = 0.8
    b[12 * cols + 14] = 2
    bWalls[9 * cols + 9] = 1
    const stats = new DifferenceStats(cols)
    for (const block of blocks(a, b, cols, 7, bWalls)) stats.add(block)
    // The box rows 5–12, columns 6–14, and two cells each side: 12 rows, 13 columns, centred in a square of 13.
    const window = stats.window(20, 5)
    expect(window).toEqual({ row0: 3, col0: 4, size: 5, block: 3 })
    const mapper = new DifferenceMapper(window, cols)
    for (const block of blocks(a, b, cols, 7, bWalls)) mapper.add(block)
    const map = mapper.map()
    expect(map.values).toHaveLength(25)
    // Grid (5, 6) and (5, 7) share map cell (0, 0) of rows 3–5, columns 4–6… and 7–9: (0, 0) +0.3, (0, 1) −0.8.
    expect(map.values[0]).toBe(0.3)
    expect(map.values[1]).toBe(-0.8)
    // (12, 14): rows 12–14 are map row 3, columns 13–15 map column 3.
    expect(map.values[3 * 5 + 3]).toBe(2)
    // The wall in B only at (9, 9): map cell (2, 1); its block's other cells compare, at 0.
    expect(map.wallsDiffer).toEqual([2 * 5 + 1])
    expect(map.values[2 * 5 + 1]).toBe(0)
    // Every map cell's block (rows 3–17, columns 4–18) lies on the grid and is compared: none is empty.
    expect(map.values.filter((v) => v === null)).toEqual([])
  })

  it('leaves map cells without a compared cell empty: walls in both, or beyond the grid', () => {
    const cols = 3
    const a = [N, N, 0, N, N, 0, 0, 0, 1]
    const b = [N, N, 0, N, N, 0, 0, 0, 0]
    const mapper = new DifferenceMapper({ row0: -1, col0: -1, size: 2, block: 2 }, cols)
    for (const block of blocks(a, b, cols, 2, null)) mapper.add(block)
    const map = mapper.map()
    // Map cell (0, 0) covers grid (−1…0, −1…0): (0, 0) is a wall in both. (1, 1) covers (1…2, 1…2): −1 at (2, 2).
    expect(map.values).toEqual([null, 0, 0, -1])
    expect(map.wallsDiffer).toEqual([])
  })
})

describe('the difference map\'s colours', () => {
  const scale = differenceScale(2)

  it('centre at 0 on the diverging scale, the same distance each way for the same |Δh|', () => {
    expect(scale.top).toBe(2)
    expect(differencePosition(scale, 0)).toBe(0.5)
    expect(differencePosition(scale, 2)).toBe(1)
    expect(differencePosition(scale, -2)).toBe(0)
    expect(differencePosition(scale, 0.5) - 0.5).toBeCloseTo(0.5 - differencePosition(scale, -0.5), 12)
    // Square root: a quarter of the top is halfway up.
    expect(differencePosition(scale, 0.5)).toBeCloseTo(0.75, 12)
    const rgb = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16))
    const [r, , b] = rgb(differenceColor(scale, 1))
    expect(r).toBeGreaterThan(b)
    const [r2, , b2] = rgb(differenceColor(scale, -1))
    expect(b2).toBeGreaterThan(r2)
    expect(differenceColor(scale, 0)).toBe('#f7f7f7')
    expect(differenceScale(0)).toEqual({ top: 1, ticks: [0, 1] })
  })

  it('set walls in both, walls in one run only and cells beyond the grid apart', () => {
    const grid = { rows: 3, cols: 3, cellsize: 1, xllcorner: 0, yllcorner: 0 }
    const map = { row0: -1, col0: -1, size: 2, block: 2, values: [null, 0, null, -1], wallsDiffer: [3] }
    // Map cell (1, 0) covers grid rows 1–2, columns −1–0: on the grid, so a wall; (0, 0) too.
    const colors = differenceCellColors({ grid, map }, scale)
    expect(colors).toEqual([BOTH_WALLS_COLOR, '#f7f7f7', BOTH_WALLS_COLOR, ONE_WALL_COLOR])
    const beyond = differenceCellColors({ grid, map: { ...map, row0: -2, col0: -2, wallsDiffer: [] } }, scale)
    expect(beyond[0]).toBeNull()
  })

  it('are drawn with a colour bar of Δh each side of 0 and the runs named', () => {
    const grid = { rows: 2, cols: 2, cellsize: 10, xllcorner: 0, yllcorner: 0 }
    const map = { row0: 0, col0: 0, size: 2, block: 1, values: [1.7, -0.2, 0, null], wallsDiffer: [] }
    const svg = new SvgPainter()
    paintDifference(svg, { grid, map, maxAbs: 1.7, names: ['before', 'after'] }, frameLayout(2))
    const doc = [...svg.pieces(10, 10)].join('')
    expect(doc).toContain('>Final debris thickness, B − A</text>')
    expect(doc).toContain('B: after − A: before')
    expect(doc).toContain('>Δh (m)</text>')
    // |Δh| up to 1.7 m: the scale runs −2 … 2.
    for (const tick of ['−2', '−1', '0', '1', '2']) expect(doc).toContain(`>${tick}</text>`)
    expect(doc).toContain(`fill="${differenceColor(differenceScale(1.7), 1.7)}"`)
    expect(doc).toContain(`fill="${BOTH_WALLS_COLOR}"`)
  })
})
