// The reference: Floyd–Warshall as the plain triple loop, k outermost (in f64 for real weights: real.ts).
import { fwBlock, fwBlockPaths } from './js-kernels'
import { fillMatrix } from './matrix'
import type { Problem } from './problem'
import { fillReal, floydWarshallReal } from './real'
import { type SolveOptions, type Solved, type Solver, yielder } from './solver-contract'

/** Runs k from 0 to V − 1 over the whole matrix, in place. */
export async function floydWarshall(d: Int32Array, key: Uint32Array | undefined, V: number, opts: SolveOptions = {}): Promise<void> {
  const tick = yielder(opts.signal)
  for (let k = 0; k < V; k++) {
    if (key) fwBlockPaths(d, key, V, 0, V, 0, V, k, k + 1)
    else fwBlock(d, V, 0, V, 0, V, k, k + 1)
    if ((k & 15) === 15) {
      opts.progress?.((k + 1) / V)
      await tick()
    }
  }
}

export const serialSolver: Solver = {
  backend: 'serial',
  async solve(p: Problem, paths: boolean, opts?: SolveOptions): Promise<Solved> {
    if (p.real) {
      const d = new Float64Array(p.V * p.V)
      const key = paths ? new Uint32Array(p.V * p.V) : undefined
      const duplicates = fillReal(p, d, key)
      const t0 = performance.now()
      await floydWarshallReal(d, key, p.V, opts)
      return { d, key, duplicates, compute_ms: performance.now() - t0, arithmetic: 'f64' }
    }
    const d = new Int32Array(p.V * p.V)
    const key = paths ? new Uint32Array(p.V * p.V) : undefined
    const duplicates = fillMatrix(p, d, key)
    const t0 = performance.now()
    await floydWarshall(d, key, p.V, opts)
    return { d, key, duplicates, compute_ms: performance.now() - t0 }
  },
  async dispose() {},
}
