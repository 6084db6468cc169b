// `paralab paths query`: the shortest path between two vertices, from the successors of a saved
// run (--next) or by computing them on one backend.
import { ApiError } from '../../../shared/errors'
import { GPU_VARIANTS, PATHS_BACKENDS, type GpuVariant, type PathsBackend } from '../../../shared/workloads/paths/types'
import { getGpu } from '../../gpu/on-demand'
import { progressBar } from '../../terminal/progress'
import { intOption, UsageError, writeJson, type Command } from '../../terminal/command'
import { onInterrupt } from '../../terminal/interrupt'

export const pathsQueryCommand: Command = {
  name: 'paths query',
  summary: 'Print the shortest path between two vertices and its length, from a saved run or by computing.',
  usage: 'paralab paths query <graph> --from A --to B [--next FILE] [--backend B] [--variant V] [--block B] [--json]',
  help: [
    '  <graph>          the graph (course binary, DIMACS .gr or CSV edge list)',
    '  --from A, --to B  the vertices, as the file names them (course: 0…V-1, DIMACS: 1…V, CSV: names)',
    '  --next FILE      the successors of a saved run (<name>.next.bin or .npy, written by `paralab paths <graph> --paths --output <name>.bin`): no computing',
    `  --backend B      otherwise compute them on ${PATHS_BACKENDS.join(', ')} (default workers-simd)`,
    `  --variant V      GPU variant (default tuned): ${GPU_VARIANTS.join(', ')}`,
    '  --block B        blocking factor of the blocked backends (default 64)',
    '  --json           print {"from","to","path","length"} on stdout',
  ].join('\n'),
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    next: { type: 'string' },
    backend: { type: 'string' },
    variant: { type: 'string' },
    block: { type: 'string' },
    json: { type: 'boolean' },
  },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1) throw new UsageError('paths query needs exactly one graph file')
    if (values.from === undefined || values.to === undefined) throw new UsageError('paths query needs --from A and --to B')
    const backend = (values.backend ?? 'workers-simd') as PathsBackend
    if (!PATHS_BACKENDS.includes(backend)) throw new UsageError(`--backend must be one of ${PATHS_BACKENDS.join(', ')}, got "${backend}"`)
    const variant = (values.variant ?? 'tuned') as GpuVariant
    if (!GPU_VARIANTS.includes(variant)) throw new UsageError(`--variant must be one of ${GPU_VARIANTS.join(', ')}, got "${variant}"`)
    const block = intOption(values.block, 'block', 8, 128) ?? 64
    if (block % 4 !== 0) throw new UsageError(`--block must be a multiple of 4, got ${block}`)

    // The graph readers and the solvers load only when a query runs.
    const [{ checkReached }, { vertexIndex, vertexName }, { MAX_PATHS_VERTICES, successors, unweight }, { prepareProblem }, { followPath, followSavedPath, pathWeight }, { readGraph }, { createSolver }] = await Promise.all([
      import('./distance-range'),
      import('./graph'),
      import('./matrix'),
      import('./prepare-problem'),
      import('./query'),
      import('./read-graph'),
      import('./pick-solver'),
    ])
    const shown = positionals[0]
    const graph = await readGraph(shown, shown)
    const problem = prepareProblem(graph, shown)
    const from = vertexIndex(graph, values.from, shown, '--from')
    const to = vertexIndex(graph, values.to, shown, '--to')
    let path: number[] | null
    let length: number | null
    if (values.next !== undefined) {
      path = await followSavedPath(values.next, graph.V, from, to)
      length = path && pathWeight(graph, path)
    } else {
      if (graph.V > MAX_PATHS_VERTICES) throw new ApiError('invalid-input', `${shown}: successors are kept for at most ${MAX_PATHS_VERTICES} vertices; this graph has ${graph.V}`)
      const solver = await createSolver({ backend, block, variant }, getGpu)
      const bar = progressBar()
      const controller = new AbortController()
      const stopListening = onInterrupt(() => controller.abort())
      try {
        const solved = await solver.solve(problem, true, { signal: controller.signal, progress: (f) => bar.update({ phase: `computing on ${backend}`, fraction: f }) })
        await checkReached(graph, problem, solved.d, shown, (v) => vertexName(graph, v))
        if (problem.potential) unweight(solved.d, graph.V, problem.potential, shown, (v) => vertexName(graph, v))
        const next = successors(solved.key!, graph.V)
        path = await followPath((v) => next[v * graph.V + to], graph.V, from, to)
        length = path && solved.d[from * graph.V + to]
        bar.done(true)
      } finally {
        bar.done(false)
        stopListening()
        await solver.dispose()
      }
    }
    const names = path?.map((v) => vertexName(graph, v)) ?? null
    if (values.json) writeJson({ from: vertexName(graph, from), to: vertexName(graph, to), path: names, length })
    else if (names) process.stdout.write(`${names.join(' → ')}\nlength ${length}, ${names.length - 1} edge${names.length === 2 ? '' : 's'}\n`)
    else process.stdout.write(`no path: ${vertexName(graph, to)} is unreachable from ${vertexName(graph, from)}\n`)
    return 0
  },
}
