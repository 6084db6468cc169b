// Matrix Market conformance: every file of ../shared/corpora/mtx (fast_matrix_market's and sprs's
// test matrices) read with the shortest-paths reader and compared with scipy.io.mmread run at set-up.
// A file is either read equal — the same vertex count and the same multiset of arcs (row, column,
// weight) as the matrix scipy.sparse.csgraph reads: a symmetric matrix's entries given both arcs as
// scipy expands them (a skew-symmetric one's mirror negated), duplicate entries summed, a dense
// (array) matrix's nonzero cells — or refused with an 'invalid-input' message naming the file and the
// feature. Every file scipy rejects is refused.
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { readGraph } from '../../src/main/workloads/paths/read-graph'

const ROOT = '../shared/corpora/mtx'

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}
const files = filesUnder(ROOT).sort()

const SCIPY = `
import sys, json, signal, scipy.io, numpy as np
def hang(*_): raise TimeoutError('scipy did not finish in 10 s')
signal.signal(signal.SIGALRM, hang)
out = {}
for path in sys.argv[1:]:
    try:
        signal.alarm(10)  # scipy loops forever on a truncated header
        m = scipy.io.mmread(path)
        signal.alarm(0)
        if not hasattr(m, 'tocoo'):
            # A dense matrix: its nonzero cells are the arcs, as csgraph reads a dense graph.
            a = np.asarray(m)
            if np.iscomplexobj(a):
                out[path] = {'complex': True}
                continue
            r, k = np.nonzero(a)
            out[path] = {'shape': list(a.shape), 'arcs': sorted([int(i), int(j), repr(float(a[i, j]))] for i, j in zip(r, k))}
            continue
        # Duplicate entries summed, explicit zeros kept: the matrix csgraph reads (coo → csr).
        c = m.tocsr().tocoo()
        if np.iscomplexobj(c.data):
            out[path] = {'complex': True}
            continue
        out[path] = {'shape': list(c.shape), 'arcs': sorted([int(i), int(j), repr(float(w))] for i, j, w in zip(c.row, c.col, c.data))}
    except Exception as e:
        signal.alarm(0)
        out[path] = {'error': type(e).__name__ + ': ' + str(e)[:200]}
print(json.dumps(out))
`
type Scipy = { shape?: [number, number]; arcs?: [number, number, string][]; complex?: boolean; error?: string }
const scipy = JSON.parse(execFileSync('/usr/bin/python3', ['-W', 'ignore', '-c', SCIPY, ...files], { encoding: 'utf8', maxBuffer: 1 << 26 })) as Record<string, Scipy>

/**
 * Each refused file (relative to ROOT) and the feature its message names (docs/formats.md lists the
 * same): vector files, complex matrices, weights that are not numbers or past ±1e300 (1E310, 1E9999),
 * integers past ±(2^30 − 1) in an integer file (2^63), non-square matrices (dense ones among them), sizes past
 * 2^31 − 1, and the malformed files of fast_matrix_market's invalid/ and sprs's bad_files/.
 * Every other file is read equal to scipy.
 */
const REFUSED: Record<string, string> = {
  "alugowski+fast_matrix_market/python/tests/matrices/long_double/longdouble_coordinate.mtx": "is beyond \u00b11e+300, the largest weight taken",
  "alugowski+fast_matrix_market/python/tests/matrices/matrix_array_real_general.mtx": "a 3 × 2 matrix is not a graph's",
  "alugowski+fast_matrix_market/python/tests/matrices/matrix_coordinate_complex_hermitian.mtx": "complex weights are not read",
  "alugowski+fast_matrix_market/python/tests/matrices/misc/windows_newlines.mtx": "expected the banner",
  "alugowski+fast_matrix_market/python/tests/matrices/scipy_crashes/dim_over_32_bit.mtx": "exceeds 2147483647",
  "alugowski+fast_matrix_market/python/tests/matrices/scipy_crashes/vector_coordinate_real_general.mtx": "a vector is not a graph",
  "alugowski+fast_matrix_market/tests/matrices/2col_array.mtx": "a 3 × 2 matrix is not a graph's",
  "alugowski+fast_matrix_market/tests/matrices/graphblas/matrix_uint64.mtx": "is not a graph's: its adjacency matrix is square",
  "alugowski+fast_matrix_market/tests/matrices/graphblas/matrix_uint8.mtx": "is not a graph's: its adjacency matrix is square",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_bad_field.mtx": "is not one of real, integer, unsigned-integer or pattern",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_bad_object.mtx": "expected the banner",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_bad_value.mtx": "is not a number",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_indices_out_of_range_1.mtx": "is outside 1\u2026",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_indices_out_of_range_3.mtx": "is outside 1\u2026",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_symmetry_vector.mtx": "a vector is not a graph",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_truncated_header_1.mtx": "no size line after the banner",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_truncated_line_2.mtx": "the size line announces",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_vector_coord_too_long.mtx": "a vector is not a graph",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_vector_index_out_of_range_2.mtx": "a vector is not a graph",
  "alugowski+fast_matrix_market/tests/matrices/invalid/invalid_vector_negative_length.mtx": "a vector is not a graph",
  "alugowski+fast_matrix_market/tests/matrices/overflow/overflow_dim_gt_int64.mtx": "exceeds 2147483647",
  "alugowski+fast_matrix_market/tests/matrices/overflow/overflow_value_gt_complex128.mtx": "complex weights are not read",
  "alugowski+fast_matrix_market/tests/matrices/overflow/overflow_value_gt_float128.mtx": "is beyond \u00b11e+300, the largest weight taken",
  "alugowski+fast_matrix_market/tests/matrices/overflow/overflow_value_gt_int64.mtx": "is not an integer in \u00b11073741823",
  "alugowski+fast_matrix_market/tests/matrices/permissive/permissive_banner_leading_spaces_eye3.mtx": "not a Matrix Market file",
  "alugowski+fast_matrix_market/tests/matrices/permissive/permissive_lines_indented.mtx": "not a Matrix Market file",
  "alugowski+fast_matrix_market/tests/matrices/row_3by4.mtx": "is not a graph's: its adjacency matrix is square",
  "alugowski+fast_matrix_market/tests/matrices/symmetry/coordinate_hermitian_row.mtx": "complex weights are not read",
  "alugowski+fast_matrix_market/tests/matrices/symmetry_array/array_hermitian.mtx": "complex weights are not read",
  "alugowski+fast_matrix_market/tests/matrices/symmetry_array/array_hermitian_general.mtx": "complex weights are not read",
  "alugowski+fast_matrix_market/tests/matrices/vector_coordinate.mtx": "a vector is not a graph",
  "alugowski+fast_matrix_market/tests/matrices/vector_coordinate_complex.mtx": "a vector is not a graph",
  "alugowski+fast_matrix_market/tests/matrices/vector_coordinate_complex_dupes.mtx": "a vector is not a graph",
  "alugowski+fast_matrix_market/tests/matrices/vector_coordinate_dupes.mtx": "a vector is not a graph",
  "sparsemat+sprs/sprs/data/matrix_market/bad_files/too_many_elems_in_entry.mm": "expected \"<row> <column> <weight>\"",
  "sparsemat+sprs/sprs/data/matrix_market/complex/simple.mtx": "complex weights are not read",
  "sparsemat+sprs/sprs/data/matrix_market/complex/skew-symmetric.mtx": "complex weights are not read",
  "sparsemat+sprs/sprs/data/matrix_market/complex/symmetric.mtx": "complex weights are not read",

}

async function read(path: string) {
  try {
    const g = await readGraph(path, path)
    const arcs = Array.from(g.src, (s, k) => [s, g.dst[k], String(g.w[k])] as [number, number, string])
    return { V: g.V, arcs: arcs.sort((a, b) => a[0] - b[0] || a[1] - b[1] || Number(a[2]) - Number(b[2])) }
  } catch (e) {
    return { error: e }
  }
}

it('reads and refuses what the list says: 19 files equal to scipy, 38 refused by name', () => {
  expect(files.length).toBe(57)
  expect(Object.keys(REFUSED).length).toBe(38)
  for (const name of Object.keys(REFUSED)) expect(files).toContain(join(ROOT, name))
})

describe.each(files.map((f) => relative(ROOT, f)))('%s', (name) => {
  it('is read as scipy reads it, or refused by name', async () => {
    const path = join(ROOT, name)
    const got = await read(path)
    const ref = scipy[path]
    expect(ref, 'scipy ran on it').toBeDefined()
    if ('error' in got) {
      const e = got.error as ApiError
      expect(e, String(e)).toBeInstanceOf(ApiError)
      expect(e.code).toBe('invalid-input')
      expect(e.message.startsWith(path)).toBe(true)
      expect(REFUSED[name], `refused, though listed as read: ${e.message}`).toBeDefined()
      expect(e.message).toContain(REFUSED[name])
      return
    }
    expect(REFUSED[name], 'read, though listed as refused').toBeUndefined()
    expect(ref.error, 'scipy rejects this file; it must be refused').toBeUndefined()
    expect(ref.shape).toEqual([got.V, got.V])
    const want = ref.arcs!.map(([i, j, w]) => [i, j, String(Number(w))] as [number, number, string])
    expect(got.arcs).toEqual(want.sort((a, b) => a[0] - b[0] || a[1] - b[1] || Number(a[2]) - Number(b[2])))
  })
})
