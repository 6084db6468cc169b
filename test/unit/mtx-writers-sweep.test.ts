// Matrix Market files as scipy.io.mmwrite writes them (every field and symmetry, coordinate and
// array, explicit zeros, duplicates, comments) and as other writers' headers look (MATLAB, R, Julia,
// Eigen, SuiteSparse, fast_matrix_market; tabs, CRLF, blank and comment lines, number forms), written
// at set-up by test/helpers/mtx-writers-sweep.py with SciPy's reading of each: the graph shortest
// paths read is the matrix scipy.sparse.csgraph reads (mmread, then coo → csr: duplicate entries
// summed, explicit zeros kept as arcs of weight 0; a dense array's nonzero cells), and the CPU's
// distances are floyd_warshall's, exactly; a negative cycle is refused where SciPy raises one; what
// SciPy rejects, complex and non-square matrices are refused by name.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INF } from '../../src/shared/workloads/paths/types'
import { ApiError } from '../../src/shared/errors'
import { unweight } from '../../src/main/workloads/paths/matrix'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { readGraph } from '../../src/main/workloads/paths/read-graph'
import { serialSolver } from '../../src/main/workloads/paths/serial'

const dir = mkdtempSync(join(tmpdir(), 'paralab-mtx-sweep-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Reference {
  how: string
  shape?: [number, number]
  arcs?: [number, number, number][]
  fw?: (number | null)[][]
  negative_cycle?: true
  complex?: true
  error?: string
}
let reference: Record<string, Reference> = {}
beforeAll(() => {
  execFileSync('/usr/bin/python3', [resolve('test/helpers/mtx-writers-sweep.py'), dir], { stdio: 'pipe' })
  reference = JSON.parse(readFileSync(join(dir, 'ref.json'), 'utf8'))
}, 60_000)

/** Files refused, and what the message names: those SciPy rejects, complex and non-square matrices, and a negative self-loop. */
const REFUSED: Record<string, string> = {
  'complex.mtx': 'complex weights are not read',
  'rectangular.mtx': 'a 3 × 4 matrix is not a graph\'s',
  'banner_lowercase.mtx': 'expected the banner',
  'more_entries.mtx': 'an entry past the 1 the size line (line 2) announces',
  'fewer_entries.mtx': 'announces 2 entries but the file has 1: it is cut short',
  'fortran_exponent.mtx': 'weight "1.5D+01" is not a number',
  // floyd_warshall sets the diagonal to 0 before it starts, so a negative self-loop goes unseen (its
  // Bellman-Ford and Johnson raise a negative cycle); shortest paths refuse it as the cycle it is.
  'negative_self_loop.mtx': 'negative cycle 1 → 1 (total weight -1)',
}

const byArc = (a: [number, number, number], b: [number, number, number]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]

describe('Matrix Market files as SciPy and other writers write them: read as SciPy reads them, or refused by name', () => {
  const names = () => Object.keys(reference)
  it('wrote every file, each with its reference', () => {
    expect(names().length).toBeGreaterThanOrEqual(45)
    for (const name of Object.keys(REFUSED)) expect(names()).toContain(name)
  })

  it('reads each file as SciPy does, distances equal to floyd_warshall\'s, or refuses it by name', async () => {
    const outcomes: Record<string, string> = {}
    for (const name of names()) {
      const ref = reference[name]
      const shown = `sweep/${name}`
      let distances: Float64Array
      try {
        const g = await readGraph(join(dir, name), shown)
        const arcs = Array.from(g.src, (s, k): [number, number, number] => [s, g.dst[k], g.w[k]]).sort(byArc)
        expect(ref.error ?? ref.complex, `${name}: SciPy rejects it (${ref.error}), but it was read`).toBeUndefined()
        expect([g.V, g.V], name).toEqual(ref.shape)
        // A weight of −0 is read as 0 (scipy keeps the sign of a zero: the same number).
        expect(arcs, `${name}: the arcs of the matrix csgraph reads`).toEqual(ref.arcs!.map(([i, j, w]): [number, number, number] => [i, j, w + 0]).sort(byArc))
        const problem = prepareProblem(g, shown)
        const solved = await serialSolver.solve(problem, false)
        // Integer weights are solved reweighted (Johnson's potentials), and given back in the graph's own, as a run does.
        if (problem.potential) unweight(solved.d, g.V, problem.potential, shown, String)
        distances = Float64Array.from(solved.d, (x) => (solved.d instanceof Int32Array && x === INF ? Infinity : x))
      } catch (e) {
        if (!(e instanceof ApiError)) throw e
        expect(e.message.startsWith(`${shown}`), e.message).toBe(true)
        outcomes[name] = ref.negative_cycle && /negative cycle/.test(e.message) ? 'negative cycle, as SciPy' : e.message
        continue
      }
      expect(ref.negative_cycle, `${name}: SciPy finds a negative cycle`).toBeUndefined()
      const want = ref.fw!.flat().map((x) => (x === null ? Infinity : x))
      const diff = want.map((w, k) => [k, w, distances[k]]).filter(([, w, x]) => w !== x)
      expect(diff, `${name}: floyd_warshall's distances`).toEqual([])
      outcomes[name] = 'equal'
    }
    const refused = Object.entries(outcomes).filter(([, o]) => o !== 'equal' && o !== 'negative cycle, as SciPy')
    expect(Object.fromEntries(refused.map(([n, o]) => [n, REFUSED[n] && o.includes(REFUSED[n]) ? REFUSED[n] : o]))).toEqual(REFUSED)
    expect(Object.values(outcomes).filter((o) => o === 'negative cycle, as SciPy').length).toBe(Object.values(reference).filter((r) => r.negative_cycle).length)
  })
})
