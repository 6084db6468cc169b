# Matrix Market files as scipy.io.mmwrite writes them and as other writers' headers look (MATLAB's
# mmwrite.m, R's writeMM, Julia, Eigen, the SuiteSparse collection, fast_matrix_market), written into
# the folder given, with SciPy's reading of each (test/unit/mtx-writers-sweep.test.ts): the matrix
# scipy.sparse.csgraph reads (mmread, coo → csr: duplicates summed, explicit zeros kept; a dense
# array's nonzero cells) and csgraph's floyd_warshall distances, or SciPy's error.
import sys, os, io, json, warnings, numpy as np, scipy.io, scipy.sparse as sp
from scipy.sparse.csgraph import floyd_warshall, NegativeCycleError
warnings.simplefilter('ignore')
d = sys.argv[1]
rng = np.random.default_rng(5)
files = {}

def sparse(n, density, dtype, lo=1, hi=9, seed=0):
    r = np.random.default_rng(seed)
    m = (r.random((n, n)) < density).astype(float) * r.integers(lo, hi, (n, n))
    np.fill_diagonal(m, 0)
    return sp.coo_matrix(m.astype(dtype))

def write(name, m, **kw):
    scipy.io.mmwrite(os.path.join(d, name), m, **kw)
    files[name] = 'scipy.io.mmwrite(%s)' % ', '.join('%s=%r' % kv for kv in kw.items())

def text(name, body):
    with open(os.path.join(d, name), 'w', newline='') as f:
        f.write(body)
    files[name] = 'hand-written'

# scipy.io.mmwrite: every field and symmetry it writes (it detects symmetry itself), coordinate and array.
real = sparse(8, 0.35, float, seed=1) * 0.37
write('real_general.mtx', real)
write('real_precision3.mtx', real, precision=3, comment='three significant digits\nsecond line')
write('integer_general.mtx', sparse(9, 0.3, np.int64, seed=2))
write('integer_as_real.mtx', sparse(7, 0.4, np.int64, seed=3), field='real')
write('real_as_integer.mtx', sparse(7, 0.4, float, seed=4), field='integer')
write('pattern_general.mtx', sparse(8, 0.3, float, seed=5), field='pattern')
sym = sparse(8, 0.25, float, seed=6); sym = sym + sym.T
write('real_symmetric.mtx', sp.coo_matrix(sym))
write('real_symmetric_forced_general.mtx', sp.coo_matrix(sym), symmetry='general')
write('pattern_symmetric.mtx', sp.coo_matrix(sym), field='pattern')
isym = sparse(7, 0.3, np.int64, seed=7); isym = isym + isym.T
write('integer_symmetric.mtx', sp.coo_matrix(isym))
skew = sparse(6, 0.3, float, seed=8); skew = sp.coo_matrix(skew - skew.T)
write('real_skew.mtx', skew)
tri = np.zeros((3, 3)); tri[1, 0], tri[2, 1], tri[2, 0] = 1.5, 2.0, 1.0
write('real_skew_small.mtx', sp.coo_matrix(tri - tri.T))
write('real_hermitian.mtx', sp.coo_matrix(sym), symmetry='hermitian')
zeros = sp.coo_matrix((np.array([0.0, 2.5, 0.0, -1.0]), (np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3]))), shape=(5, 5))
write('explicit_zeros.mtx', zeros)
dups = sp.coo_matrix((np.array([1.5, 2.25, 4.0, 1.0, -1.0, 0.1, 0.2, 0.3]), (np.array([0, 0, 1, 2, 2, 3, 3, 3]), np.array([1, 1, 2, 3, 3, 0, 0, 0]))), shape=(4, 4))
write('duplicates.mtx', dups)
idups = sp.coo_matrix((np.array([3, 4, -2, 9]), (np.array([0, 0, 1, 2]), np.array([1, 1, 2, 0]))), shape=(3, 3))
write('duplicates_integer.mtx', idups)
write('empty.mtx', sp.coo_matrix((4, 4)))
write('one_vertex.mtx', sp.coo_matrix(np.array([[2.0]])))
dense = real.toarray()
write('array_real.mtx', dense)
write('array_integer.mtx', sparse(5, 0.5, np.int64, seed=9).toarray())
write('array_symmetric.mtx', sym.toarray())
write('array_skew.mtx', np.array([[0, -1, 2], [1, 0, -3], [-2, 3, 0]], dtype=float))
write('array_skew_acyclic.mtx', np.array([[0, 1.0], [-1.0, 0]]))
write('complex.mtx', sp.coo_matrix(real * (1 + 1j)))
write('rectangular.mtx', sp.coo_matrix(np.ones((3, 4))))

# Other writers' headers and layouts, as they write them.
text('matlab_mmwrite.mtx', '%%MatrixMarket matrix coordinate real general\n% Generated 27-Feb-2012\n3 3 3\n    1     2  3.5000000000000000e+00\n    2     3  1.2500000000000000e+00\n    3     1 -5.0000000000000000e-01\n')
text('r_writeMM.mtx', '%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 3.5\n2 3 1.25\n3 1 4\n')
text('r_writeMM_pattern.mtx', '%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 1\n')
text('julia.mtx', '%%MatrixMarket matrix coordinate real general\n4 4 3\n1 2 0.5\n2 4 2.0\n4 3 1.0e-3\n')
text('eigen_symmetric.mtx', '%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 1 1.5\n3 2 2.5\n')
text('suitesparse.mtx', '%%MatrixMarket matrix coordinate integer symmetric\n%-------------------------------------------------------------------------------\n% UF Sparse Matrix Collection, Tim Davis\n% name: Test/tiny\n% kind: undirected weighted graph\n%-------------------------------------------------------------------------------\n4 4 4\n2 1 3\n3 1 8\n4 2 1\n4 3 2\n')
text('fast_matrix_market.mtx', '%%MatrixMarket matrix coordinate real general\n%\n3 3 2\n1 2 2.5\n3 2 -0.5\n')
text('keywords_uppercase.mtx', '%%MatrixMarket MATRIX Coordinate REAL General\n2 2 1\n1 2 3\n')
text('double_field.mtx', '%%MatrixMarket matrix coordinate double general\n2 2 1\n1 2 3.25\n')
text('unsigned_integer.mtx', '%%MatrixMarket matrix coordinate unsigned-integer general\n3 3 2\n1 2 7\n2 3 0\n')
text('tabs_crlf_blank.mtx', '%%MatrixMarket matrix coordinate real general\r\n% a comment\r\n\r\n3\t3\t3\r\n1\t2\t1.5\r\n\r\n% between entries\r\n2 3 2.5   \r\n3\t1\t-1\r\n')
text('number_forms.mtx', '%%MatrixMarket matrix coordinate real general\n4 4 4\n1 2 +.5\n2 3 5.\n3 4 1.5e+01\n4 1 -0\n')
text('symmetric_both_triangles.mtx', '%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1.5\n1 2 2.5\n3 3 1\n')
text('skew_pattern.mtx', '%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 2\n2 1\n3 2\n')
text('array_hermitian_real.mtx', '%%MatrixMarket matrix array real hermitian\n2 2\n0\n2.5\n3\n')
text('array_zeros.mtx', '%%MatrixMarket matrix array integer general\n3 3\n0\n4\n0\n0\n0\n-2\n7\n0\n0\n')
text('negative_self_loop.mtx', '%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 -1\n1 2 3\n')
text('negative_cycle.mtx', '%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 2\n2 3 -1\n3 1 -2\n')
text('banner_lowercase.mtx', '%%matrixmarket matrix coordinate real general\n2 2 1\n1 2 3\n')
text('more_entries.mtx', '%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3\n2 1 4\n')
text('fewer_entries.mtx', '%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 3\n')
text('fortran_exponent.mtx', '%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1.5D+01\n')

def dist(a):
    try:
        fw = floyd_warshall(a, directed=True)
        return {'fw': [[None if not np.isfinite(x) else float(x) for x in row] for row in fw]}
    except NegativeCycleError:
        return {'negative_cycle': True}

ref = {}
for name, how in files.items():
    path = os.path.join(d, name)
    try:
        m = scipy.io.mmread(path)
    except Exception as e:
        ref[name] = {'how': how, 'error': type(e).__name__ + ': ' + str(e)[:200]}
        continue
    if np.iscomplexobj(m.data if hasattr(m, 'data') and not isinstance(m, np.ndarray) else m):
        ref[name] = {'how': how, 'complex': True}
        continue
    if not hasattr(m, 'tocoo'):
        a = np.asarray(m, dtype=float)
        r, c = np.nonzero(a)
        out = {'shape': list(a.shape), 'arcs': sorted([int(i), int(j), float(a[i, j])] for i, j in zip(r, c))}
        ref[name] = {'how': how, **out, **(dist(a) if a.shape[0] == a.shape[1] else {})}
        continue
    csr = m.tocsr()
    c = csr.tocoo()
    out = {'shape': list(c.shape), 'arcs': sorted([int(i), int(j), float(w)] for i, j, w in zip(c.row, c.col, c.data))}
    ref[name] = {'how': how, **out, **(dist(csr.astype(float)) if c.shape[0] == c.shape[1] else {})}
json.dump(ref, open(os.path.join(d, 'ref.json'), 'w'))
