// `paralab bench paths`: backends and GPU variants on one seeded graph, against SciPy.
import { BLOCK_SIZES, GPU_VARIANTS, PATHS_BACKENDS, type GpuVariant, type PathsBackend } from '../../../shared/workloads/paths/types'
import { ApiError } from '../../../shared/errors'
import { intOption, UsageError, writeJson, type Command } from '../../terminal/command'
import { checkSave, SAVE_HELP, SAVE_OPTIONS, saveJson } from '../../terminal/save-flag'
import { GPU_WARMUP_MS } from '../../gpu/timing'
import type { PathsBenchResult } from './bench'
import { MAX_GENERATED_VERTICES } from './generate-limits'
import { DEFAULT_TUNED_SHAPE, TUNED_SWEEP_SHAPES, parseTunedShape } from './gpu/tuned-shapes'
import { maxOf } from '../../../shared/extent'

/** The issue's CPU comparison: V = 2000 (SciPy takes ~6 s there on 2 cores). */
const BENCH_VERTICES = 2000

function list<T extends string>(value: string | undefined, all: readonly T[], fallback: readonly T[], flag: string): T[] {
  if (value === undefined) return [...fallback]
  if (value === 'all') return [...all]
  const picked = value.split(',').map((s) => s.trim()) as T[]
  const bad = picked.find((p) => !all.includes(p))
  if (bad !== undefined) throw new UsageError(`--${flag} must be ${all.join(', ')} or all, got "${bad}"`)
  return picked
}

export const benchPathsCommand: Command = {
  name: 'bench paths',
  summary: 'Benchmark the shortest-paths workload: every backend and GPU variant on a seeded graph, against SciPy.',
  usage:
    'paralab bench paths [--vertices V,…] [--edges E] [--seed S] [--file PATH] [--backend B,…] [--variant V,…] [--block B,…] [--shapes S,…|all] [--gpus N,…] [--repeat R] [--scipy-repeat R] [--no-scipy] [--json] [--save FILE [--force]]',
  help: [
    `  --vertices V,…    vertices of the generated graph (default ${BENCH_VERTICES}); several: one graph and one bench each, in turn`,
    '  --edges E         its edges (default V²/10, dense as the course\'s large cases)',
    '  --seed S          its seed (default 1)',
    '  --file PATH       a course-format graph instead',
    '  --backend B,…     backends (default blocked, simd, workers, workers-simd, and gpu; serial only when named: V³ in TypeScript)',
    '  --variant V,…     GPU variants (default all)',
    '  --block B,…       blocking factors (default 64)',
    `  --shapes S,…|all  tile shapes of the tuned variant's phase 3 (a register-blocked min-plus product), one run each`,
    `                    (default ${DEFAULT_TUNED_SHAPE}); b<rows>[x<cols>]-k<k>: the workgroup's tile (4 × 4 cells an invocation), k per stage;`,
    `                    all: ${TUNED_SWEEP_SHAPES.join(', ')}`,
    '  --gpus N,…        GPUs of the tuned variant, one run each (default 1): block rows spread over them, pivot rows exchanged',
    `  --repeat R        computations per backend, the median reported (default 5); on the GPU of the uploaded matrix, after untimed ones for ${GPU_WARMUP_MS} ms`,
    '  --scipy-repeat R  SciPy runs (default 3)',
    '  --no-scipy        skip SciPy (python3 with scipy, e.g. Debian\'s python3-scipy)',
    '  --json            print the figures as one JSON object on stdout (an array of them for several --vertices)',
    'Exits 1 when a run fails or computes another checksum than the first (the others are still reported).',
    ...SAVE_HELP,
  ].join('\n'),
  options: {
    vertices: { type: 'string' },
    edges: { type: 'string' },
    seed: { type: 'string' },
    file: { type: 'string' },
    backend: { type: 'string' },
    variant: { type: 'string' },
    block: { type: 'string' },
    shapes: { type: 'string' },
    gpus: { type: 'string' },
    repeat: { type: 'string' },
    'scipy-repeat': { type: 'string' },
    'no-scipy': { type: 'boolean' },
    json: { type: 'boolean' },
    ...SAVE_OPTIONS,
  },
  async run(values) {
    await checkSave(values.save, !!values.force)
    const sizes: number[] = (values.vertices ?? String(BENCH_VERTICES)).split(',').map((v: string) => intOption(v.trim(), 'vertices', 1, MAX_GENERATED_VERTICES)!)
    if (values.file !== undefined && sizes.length > 1) throw new UsageError('--file takes the graph it names: give no list of --vertices with it')
    const edges = sizes.map((V: number) => intOption(values.edges, 'edges', 0, V * (V - 1)) ?? Math.floor((V * V) / 10))
    const variants = list<GpuVariant>(values.variant, GPU_VARIANTS, GPU_VARIANTS, 'variant')
    const shapes = values.shapes === undefined ? undefined : values.shapes === 'all' ? [...TUNED_SWEEP_SHAPES] : (values.shapes as string).split(',').map((s: string) => s.trim())
    if (shapes) {
      if (!variants.includes('tuned')) throw new UsageError('--shapes are tile shapes of the tuned variant: add tuned to --variant')
      for (const s of shapes)
        try {
          parseTunedShape(s)
        } catch (e) {
          throw new UsageError(`--shapes: ${ApiError.from(e).message}`)
        }
    }
    // The bench (solvers, the GPU, SciPy's baseline) loads only when it runs.
    const { benchPaths, relaxRate } = await import('./bench')
    const results: PathsBenchResult[] = []
    for (const [n, vertices] of sizes.entries()) {
      const result = await benchPaths({
        vertices,
        edges: edges[n],
        seed: intOption(values.seed, 'seed', 0, 2 ** 32 - 1) ?? 1,
        file: values.file,
        backends: list<PathsBackend>(values.backend, PATHS_BACKENDS, ['blocked', 'simd', 'workers', 'workers-simd', 'gpu'], 'backend'),
        variants,
        blocks: list(values.block, BLOCK_SIZES, ['64'], 'block'),
        ...(shapes && { shapes }),
        ...(values.gpus !== undefined && { gpus: (values.gpus as string).split(',').map((n: string) => intOption(n.trim(), 'gpus', 1, 16)!) }),
        repeat: intOption(values.repeat, 'repeat', 1, 1000) ?? 5,
        scipyRepeat: intOption(values['scipy-repeat'], 'scipy-repeat', 1, 100) ?? 3,
        scipy: !values['no-scipy'],
        log: (line) => process.stderr.write(`${line}\n`),
      })
      results.push(result)
      if (!values.json) process.stdout.write((n > 0 ? '\n' : '') + describe(result, relaxRate))
    }
    const json = results.length === 1 ? results[0] : results
    await saveJson(values.save, json, !!values.force)
    if (values.json) writeJson(json)
    return results.some((r) => r.failed.length > 0) ? 1 : 0
  },
}

function describe(r: PathsBenchResult, relaxRate: (perSecond: number) => string): string {
  const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 0)} ms`
  const width = Math.max(22, maxOf(Object.keys(r.runs).map((n) => n.length)))
  const lines = [
    `machine   ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memory_GB} GB; GPU: ${r.machine.gpu}`,
    `graph     ${r.graph.path}: ${r.graph.vertices} vertices, ${r.graph.edges} edges, checksum ${r.graph.checksum}`,
    `compute   (median of ${r.repeat})`,
    ...Object.entries(r.runs).map(
      ([name, x]) =>
        `  ${name.padEnd(width)} ${ms(x.median_ms).padStart(10)}  ${relaxRate(x.relaxations_per_s).padStart(8)} relax/s${x.ratio_vs_scipy !== undefined ? `  ${x.ratio_vs_scipy.toFixed(3)}× SciPy` : ''}`,
    ),
    ...(r.scipy ? [`SciPy     floyd_warshall ${r.scipy.version}: ${ms(r.scipy.median_ms)} (median of ${r.scipy.repeat})${r.scipy.checksum_matches ? ', same checksum' : ''}`] : []),
  ]
  return lines.concat(r.notes.map((n) => `note      ${n}`)).join('\n') + '\n'
}
