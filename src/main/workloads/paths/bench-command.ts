// `paralab bench paths`: backends and GPU variants on one seeded graph, against SciPy.
import { writeFile } from 'node:fs/promises'
import { BLOCK_SIZES, GPU_VARIANTS, PATHS_BACKENDS, type GpuVariant, type PathsBackend } from '../../../shared/workloads/paths/types'
import { intOption, UsageError, writeJson, type Command } from '../../cli/command'
import { benchPaths, type PathsBenchResult } from './bench'

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
  usage: 'paralab bench paths [--vertices V] [--edges E] [--seed S] [--file PATH] [--backend B,…] [--variant V,…] [--block B,…] [--repeat R] [--scipy-repeat R] [--no-scipy] [--json] [--save FILE]',
  help: [
    `  --vertices V      vertices of the generated graph (default ${BENCH_VERTICES})`,
    '  --edges E         its edges (default V²/10, dense as the course\'s large cases)',
    '  --seed S          its seed (default 1)',
    '  --file PATH       a course-format graph instead',
    '  --backend B,…     backends (default blocked, simd, workers, workers-simd, and gpu; serial only when named: V³ in TypeScript)',
    '  --variant V,…     GPU variants (default all)',
    '  --block B,…       blocking factors (default 64)',
    '  --repeat R        computations per backend; the median is reported (default 5)',
    '  --scipy-repeat R  SciPy runs (default 3)',
    '  --no-scipy        skip SciPy (python3 with scipy, e.g. Debian\'s python3-scipy)',
    '  --json            print the figures as one JSON object on stdout',
    '  --save FILE       also write that JSON object to FILE',
  ].join('\n'),
  options: {
    vertices: { type: 'string' },
    edges: { type: 'string' },
    seed: { type: 'string' },
    file: { type: 'string' },
    backend: { type: 'string' },
    variant: { type: 'string' },
    block: { type: 'string' },
    repeat: { type: 'string' },
    'scipy-repeat': { type: 'string' },
    'no-scipy': { type: 'boolean' },
    json: { type: 'boolean' },
    save: { type: 'string' },
  },
  async run(values) {
    const vertices = intOption(values.vertices, 'vertices', 1, 46_340) ?? BENCH_VERTICES
    const result = await benchPaths({
      vertices,
      edges: intOption(values.edges, 'edges', 0, vertices * (vertices - 1)) ?? Math.floor((vertices * vertices) / 10),
      seed: intOption(values.seed, 'seed', 0, 2 ** 32 - 1) ?? 1,
      file: values.file,
      backends: list<PathsBackend>(values.backend, PATHS_BACKENDS, ['blocked', 'simd', 'workers', 'workers-simd', 'gpu'], 'backend'),
      variants: list<GpuVariant>(values.variant, GPU_VARIANTS, GPU_VARIANTS, 'variant'),
      blocks: list(values.block, BLOCK_SIZES, ['64'], 'block'),
      repeat: intOption(values.repeat, 'repeat', 1, 1000) ?? 5,
      scipyRepeat: intOption(values['scipy-repeat'], 'scipy-repeat', 1, 100) ?? 3,
      scipy: !values['no-scipy'],
      log: (line) => process.stderr.write(`${line}\n`),
    })
    if (values.save) await writeFile(values.save, JSON.stringify(result, null, 2) + '\n')
    if (values.json) writeJson(result)
    else process.stdout.write(describe(result))
    return 0
  },
}

function describe(r: PathsBenchResult): string {
  const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 0)} ms`
  const lines = [
    `machine   ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memory_GB} GB; GPU: ${r.machine.gpu}`,
    `graph     ${r.graph.path}: ${r.graph.vertices} vertices, ${r.graph.edges} edges, checksum ${r.graph.checksum}`,
    `compute   (median of ${r.repeat})`,
    ...Object.entries(r.runs).map(
      ([name, x]) =>
        `  ${name.padEnd(22)} ${ms(x.median_ms).padStart(10)}  ${(x.relaxations_per_s / 1e9).toPrecision(3).padStart(6)} G relax/s${x.ratio_vs_scipy !== undefined ? `  ${x.ratio_vs_scipy.toFixed(3)}× SciPy` : ''}`,
    ),
    ...(r.scipy ? [`SciPy     floyd_warshall ${r.scipy.version}: ${ms(r.scipy.median_ms)} (median of ${r.scipy.repeat})${r.scipy.checksum_matches ? ', same checksum' : ''}`] : []),
  ]
  return lines.concat(r.notes.map((n) => `note      ${n}`)).join('\n') + '\n'
}
