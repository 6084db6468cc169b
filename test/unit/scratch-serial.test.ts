import { it } from 'vitest'
import { readLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { initialState, ThreadSimulation } from '../../src/main/workloads/landslide/simulation'
import { Band } from '../../src/main/workloads/landslide/band'
const D = '/work/shared/data/landslide/'
it('serial overhead', { timeout: 600_000 }, async () => {
  const files = ['tessina_header.txt', 'tessina_dem.txt', 'tessina_source.txt'].map((f) => D + f)
  const input = await readLandslideInput(files, files)
  const state = initialState(input)
  const STEPS = 400
  const plain = () => {
    const { rows, cols } = state
    const n = rows * cols
    const h = state.h.slice()
    const layers = { z: state.z, h, f0: new Float64Array(n), f1: new Float64Array(n), f2: new Float64Array(n), f3: new Float64Array(n), mask: state.mask }
    const band = new Band({ rows, cols, r0: 1, r1: Math.max(1, rows - 1) }, layers, null)
    const t = performance.now()
    for (let s = 0; s < STEPS; s++) band.step(s & 1)
    return performance.now() - t
  }
  const sliced = async () => {
    const sim = new ThreadSimulation(state, false)
    const t = performance.now()
    await sim.advance(STEPS)
    return performance.now() - t
  }
  const a: number[] = [], b: number[] = []
  for (let r = 0; r < 5; r++) { a.push(plain()); b.push(await sliced()) }
  console.log('plain', a.map((x) => x.toFixed(0)).join(' '), 'sliced', b.map((x) => x.toFixed(0)).join(' '))
})
