// SciPy's floyd_warshall on the same graph, through python3, for `bench paths`: its median time
// and its checksum (so that the comparison is known to be between equal answers).
import { spawn } from 'node:child_process'

const SCRIPT = `
import sys, time, json
import numpy as np
from scipy.sparse.csgraph import floyd_warshall, csgraph_from_dense
raw = np.fromfile(sys.argv[1], dtype='<i4')
V, E = int(raw[0]), int(raw[1])
e = raw[2:2 + 3 * E].reshape(E, 3)
M = np.full((V, V), np.inf)
np.minimum.at(M, (e[:, 0], e[:, 1]), e[:, 2].astype(float))
np.fill_diagonal(M, 0)
# Dense input would read 0 as "no edge": zero-weight edges stay edges in the sparse form.
G = csgraph_from_dense(M, null_value=np.inf)
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    D = floyd_warshall(G, directed=True)
    times.append((time.perf_counter() - t) * 1000)
print(json.dumps({"times_ms": times, "checksum": str(int(D[np.isfinite(D)].sum())), "scipy": __import__("scipy").__version__}))
`

export interface ScipyTiming {
  times_ms: number[]
  checksum: string
  scipy: string
}

/** Runs SciPy on a course-format graph `repeat` times; rejects with the reason when python3 or SciPy is missing. */
export function scipyFloydWarshall(graphPath: string, repeat: number, signal?: AbortSignal): Promise<ScipyTiming> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', SCRIPT, graphPath, String(repeat)], { stdio: ['ignore', 'pipe', 'pipe'], signal })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', (e) => reject(new Error(`python3 is not available (${e.message})`)))
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(/No module named/.test(err) ? `SciPy is not installed (${err.trim().split('\n').pop()})` : `python3 failed: ${err.trim().split('\n').pop()}`))
      try {
        resolve(JSON.parse(out) as ScipyTiming)
      } catch {
        reject(new Error(`python3 printed no timing: ${out.slice(0, 200)}`))
      }
    })
  })
}
