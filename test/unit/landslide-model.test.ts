// SciddicaT on the CPU, every backend against the reference program: the 10 × 5 toy grid by values
// checked by hand, the Tessina landslide against an independent straightforward implementation of
// the reference program (written here, from its rules in ../shared/data/README.md) after 1, 100 and
// 1000 steps, and against the published md5 after 4000; walls that stop the flow; the same bits
// from every backend and any number of row bands.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseLandslideInput, readLandslideInput, type LandslideInput } from '../../src/main/workloads/landslide/inputs'
import { splitLines } from '../../src/main/workloads/landslide/esri-grid'
import { referenceMd5 } from '../../src/main/workloads/landslide/reference-format'
import { initialState, ThreadSimulation, type Simulation } from '../../src/main/workloads/landslide/simulation'
import { WorkersSimulation } from '../../src/main/workloads/landslide/workers-simulation'
import { syntheticSlope } from '../../src/main/workloads/landslide/example'

const DATA = join(__dirname, '../../../shared/data/landslide')
const TESSINA_MD5_4000 = '8ed78fa13180c12b4d8aeec7ce6a362a'

/**
 * The reference program as its rules read, on plain arrays: no walls, every interior cell, the
 * flows reset every step, neighbours N, W, E, S, eliminated while the average of those left is at
 * or below them.
 */
class StraightforwardReference {
  readonly z: Float64Array
  readonly h: Float64Array
  /** The four outflow layers, one after the other. */
  private readonly f: Float64Array
  constructor(
    readonly rows: number,
    readonly cols: number,
    dem: number[],
    source: number[],
  ) {
    this.z = Float64Array.from(dem)
    this.h = Float64Array.from(source)
    this.f = new Float64Array(4 * rows * cols)
    for (let i = 1; i < rows - 1; i++) for (let j = 1; j < cols - 1; j++) if (this.h[i * cols + j] > 0) this.z[i * cols + j] -= this.h[i * cols + j]
  }
  step(): void {
    const { rows, cols, z, h, f } = this
    const n = rows * cols
    // Neighbour n of cell k is k + offset[n]: 0 centre, 1 north, 2 west, 3 east, 4 south.
    const offset = [0, -cols, -1, 1, cols]
    const eliminated = [false, false, false, false, false]
    const u = [0, 0, 0, 0, 0]
    for (let i = 1; i < rows - 1; i++) for (let j = 1; j < cols - 1; j++) for (let l = 0; l < 4; l++) f[l * n + i * cols + j] = 0
    for (let i = 1; i < rows - 1; i++)
      for (let j = 1; j < cols - 1; j++) {
        const k = i * cols + j
        const m = h[k] - 0.001
        u[0] = z[k] + 0.001
        for (let q = 1; q < 5; q++) u[q] = z[k + offset[q]] + h[k + offset[q]]
        for (let q = 0; q < 5; q++) eliminated[q] = false
        let average: number
        let again: boolean
        do {
          again = false
          average = m
          let count = 0
          for (let q = 0; q < 5; q++)
            if (!eliminated[q]) {
              average += u[q]
              count++
            }
          if (count !== 0) average /= count
          for (let q = 0; q < 5; q++)
            if (average <= u[q] && !eliminated[q]) {
              eliminated[q] = true
              again = true
            }
        } while (again)
        for (let q = 1; q < 5; q++) if (!eliminated[q]) f[(q - 1) * n + k] = (average - u[q]) * 0.5
      }
    for (let i = 1; i < rows - 1; i++)
      for (let j = 1; j < cols - 1; j++) {
        const k = i * cols + j
        let next = h[k]
        next += f[3 * n + k - cols] - f[k]
        next += f[2 * n + k - 1] - f[n + k]
        next += f[n + k + 1] - f[2 * n + k]
        next += f[k + cols] - f[3 * n + k]
        h[k] = next
      }
  }
}

/** The study's grid files read the plain way: whitespace-separated numbers after the header file's sizes. */
function readPlain(name: string): { rows: number; cols: number; dem: number[]; source: number[] } {
  const header = readFileSync(join(DATA, `${name}_header.txt`), 'utf8').split(/\s+/)
  const cols = Number(header[header.indexOf('ncols') + 1])
  const rows = Number(header[header.indexOf('nrows') + 1])
  const values = (f: string) => readFileSync(join(DATA, `${name}_${f}.txt`), 'utf8').trim().split(/\s+/).map(Number)
  return { rows, cols, dem: values('dem'), source: values('source') }
}

async function tessina(): Promise<LandslideInput> {
  const files = ['header', 'dem', 'source'].map((f) => join(DATA, `tessina_${f}.txt`))
  return readLandslideInput(files, files)
}

const md5Of = async (sim: Simulation, input: LandslideInput) => referenceMd5(await sim.thickness(), input.rows, input.cols)

const open: Simulation[] = []
afterAll(async () => {
  for (const sim of open) await sim.dispose()
})
function track<S extends Simulation>(sim: S): S {
  open.push(sim)
  return sim
}

describe('the 10 × 5 toy grid', () => {
  it('after one step: the carved cell keeps 0.6 m and gives 0.1 m to each neighbour; the border never changes', async () => {
    const files = ['header', 'dem', 'source'].map((f) => join(DATA, `test_${f}.txt`))
    const input = await readLandslideInput(files, files)
    for (const sim of [new ThreadSimulation(initialState(input), false), new ThreadSimulation(initialState(input), true), track(new WorkersSimulation(initialState(input), 3, false))]) {
      await sim.advance(1)
      const h = await sim.thickness()
      const at = (i: number, j: number) => h[i * 5 + j]
      // z = 2 carved to 1 under h = 1: m = 0.999, u0 = 1.001, four neighbours at 1 → average 1.2, nothing eliminated.
      expect(at(5, 2)).toBeCloseTo(0.6, 15)
      for (const [i, j] of [[4, 2], [5, 1], [5, 3], [6, 2]]) expect(at(i, j)).toBeCloseTo(0.1, 15)
      // The source's first column lies on the border: it neither flows nor changes.
      for (let i = 0; i < 10; i++) expect(at(i, 0)).toBe(i)
      let interior = 0
      for (let i = 1; i < 9; i++) for (let j = 1; j < 4; j++) interior += at(i, j)
      expect(interior).toBeCloseTo(1, 14)
    }
  })

  it('matches the straightforward reference bit for bit over 50 steps', async () => {
    const plain = readPlain('test')
    const ref = new StraightforwardReference(plain.rows, plain.cols, plain.dem, plain.source)
    const files = ['header', 'dem', 'source'].map((f) => join(DATA, `test_${f}.txt`))
    const input = await readLandslideInput(files, files)
    const sims = [new ThreadSimulation(initialState(input), false), new ThreadSimulation(initialState(input), true), track(new WorkersSimulation(initialState(input), 2, true))]
    for (let s = 0; s < 50; s++) ref.step()
    for (const sim of sims) {
      await sim.advance(50)
      expect(Array.from(await sim.thickness())).toEqual(Array.from(ref.h))
    }
  })
})

describe('Tessina', () => {
  // Checkpoints: step → the reference's md5 there (1, 100 and 1000 from the straightforward
  // implementation, computed once for every backend below; 4000 as published).
  const expected = new Map<number, string>([[4000, TESSINA_MD5_4000]])
  let input: LandslideInput

  it('the straightforward reference, after 1, 100 and 1000 steps', async () => {
    input = await tessina()
    const plain = readPlain('tessina')
    expect([plain.rows, plain.cols]).toEqual([610, 496])
    const ref = new StraightforwardReference(plain.rows, plain.cols, plain.dem, plain.source)
    for (let s = 1; s <= 1000; s++) {
      ref.step()
      if (s === 1 || s === 100 || s === 1000) expected.set(s, referenceMd5(ref.h, plain.rows, plain.cols))
    }
    expect(expected.size).toBe(4)
  }, 240_000)

  /** Runs `sim` through the checkpoints up to `last`, checking each md5. */
  async function check(sim: Simulation, last: number): Promise<void> {
    for (const step of [1, 100, 1000, 4000].filter((s) => s <= last)) {
      await sim.advance(step - sim.done)
      expect(await md5Of(sim, input), `after ${step} steps`).toBe(expected.get(step))
    }
  }

  it('serial reproduces the reference after 1, 100, 1000 and 4000 steps; mass stays 5557', async () => {
    const sim = new ThreadSimulation(initialState(input), false)
    await check(sim, 4000)
    const h = await sim.thickness()
    expect(h.reduce((a, b) => a + b, 0)).toBeCloseTo(5557, 9)
  }, 120_000)

  it('active reproduces it too', async () => {
    await check(new ThreadSimulation(initialState(input), true), 4000)
  }, 60_000)

  it('workers-active, in 2 and in 3 bands', async () => {
    for (const ranks of [2, 3]) {
      const sim = track(new WorkersSimulation(initialState(input), ranks, true))
      expect(sim.ranks).toBe(ranks)
      await check(sim, 4000)
    }
  }, 120_000)

  it('workers (every cell), in 2 and in 3 bands, up to 100 steps', async () => {
    for (const ranks of [2, 3]) await check(track(new WorkersSimulation(initialState(input), ranks, false)), 100)
  }, 120_000)
})

describe('walls', () => {
  // A valley falling south, walled all round (an open border would let debris leave: the reference
  // computes outflows toward border cells but never adds them there), with a wall row across it
  // that has a gap in the middle or none.
  function walledSlope(gap: boolean): LandslideInput {
    const rows = 24
    const cols = 19
    const header = `ncols ${cols}\nnrows ${rows}\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n`
    const dem: string[] = []
    const source: string[] = []
    for (let i = 0; i < rows; i++) {
      const d: string[] = []
      const s: string[] = []
      for (let j = 0; j < cols; j++) {
        const wall = (i === 12 && !(gap && j === 9)) || i === 0 || j === 0 || i === rows - 1 || j === cols - 1
        d.push(wall ? '-9999' : String(100 - 2 * i + 0.3 * (j - 9) ** 2))
        s.push(i >= 3 && i <= 5 && j >= 7 && j <= 11 ? '2.5' : '0')
      }
      dem.push(d.join(' '))
      source.push(s.join(' '))
    }
    const lines = (t: string) => ({ shown: 'x.asc', lines: splitLines(t) })
    return parseLandslideInput([lines(header + dem.join('\n')), lines(header + source.join('\n'))])
  }

  it('stop the flow: nothing crosses a closed wall, walls keep no debris, mass is kept', async () => {
    const input = walledSlope(false)
    const sim = new ThreadSimulation(initialState(input), false)
    await sim.advance(300)
    const h = await sim.thickness()
    let below = 0
    let walls = 0
    let mass = 0
    for (let k = 0; k < h.length; k++) {
      mass += h[k]
      if (Math.floor(k / input.cols) > 12) below += h[k]
      if (input.walls![k]) walls += Math.abs(h[k])
    }
    expect(below).toBe(0)
    expect(walls).toBe(0)
    expect(mass).toBeCloseTo(15 * 2.5, 10)
    // Against the wall's north side the debris piles up.
    expect(h[11 * input.cols + 9]).toBeGreaterThan(0.1)
  })

  it('let it through a gap; every backend and band count gives the same bits', async () => {
    const input = walledSlope(true)
    const serial = new ThreadSimulation(initialState(input), false)
    await serial.advance(300)
    const h = await serial.thickness()
    let below = 0
    for (let k = 13 * input.cols; k < h.length; k++) below += h[k]
    expect(below).toBeGreaterThan(0.5)
    const md5 = referenceMd5(h, input.rows, input.cols)
    const others = [
      new ThreadSimulation(initialState(input), true),
      ...[2, 3, 5].map((r) => track(new WorkersSimulation(initialState(input), r, false))),
      ...[2, 4].map((r) => track(new WorkersSimulation(initialState(input), r, true))),
    ]
    for (const sim of others) {
      // Uneven slices: the bands' exchange holds across task boundaries.
      await sim.advance(7)
      await sim.advance(293)
      expect(await md5Of(sim, input)).toBe(md5)
    }
  })

  it('the example\'s slope: its quarry walls and its source give the same bits on every backend', async () => {
    const slope = syntheticSlope()
    const input = parseLandslideInput([
      { shown: 'dem.asc', lines: splitLines(slope.dem) },
      { shown: 'src.asc', lines: splitLines(slope.source) },
    ])
    expect(input.wallCount).toBeGreaterThan(100)
    const serial = new ThreadSimulation(initialState(input), false)
    await serial.advance(400)
    const md5 = await md5Of(serial, input)
    for (const sim of [new ThreadSimulation(initialState(input), true), track(new WorkersSimulation(initialState(input), 2, true))]) {
      await sim.advance(400)
      expect(await md5Of(sim, input)).toBe(md5)
    }
    // The debris met the quarry's walls, went round them and came to rest in the basin: none left the grid.
    const h = await serial.thickness()
    const c = input.cols
    let touching = 0
    let mass = 0
    for (let k = 0; k < h.length; k++) {
      mass += h[k]
      if (k >= c && k < h.length - c && h[k] > 0 && !input.walls![k] && (input.walls![k - c] || input.walls![k + c] || input.walls![k - 1] || input.walls![k + 1])) touching++
    }
    expect(touching).toBeGreaterThan(10)
    expect(mass).toBeCloseTo(input.h.reduce((a, b) => a + b, 0), 9)
  })
})
