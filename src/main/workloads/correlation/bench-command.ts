import { CORRELATION_BACKENDS, CROSS_VARIANTS, type CorrelationBackend, type CrossVariant, MEANS_VARIANTS, type MeansVariant, PRECISIONS, type Precision } from '../../../shared/workloads/correlation/types'
import { intOption, UsageError, writeJson, type Command } from '../../terminal/command'
import { checkSave, SAVE_HELP, SAVE_OPTIONS, saveJson } from '../../terminal/save-flag'
import { GPU_WARMUP_MS } from '../../gpu/timing'
import type { CorrelationBenchResult } from './bench'
import { BENCH_SIZE, STUDY_SIZE } from './bench-sizes'
import { DEFAULT_REGISTER_SHAPE, type RegisterShape, SWEEP_SHAPES, parseRegisterShape } from './gpu/register-shapes'

function shapes(value: unknown): RegisterShape[] | undefined {
  if (value === undefined) return undefined
  const names = value === 'all' ? [...SWEEP_SHAPES] : String(value).split(',').map((s) => s.trim())
  try {
    return names.map(parseRegisterShape)
  } catch (e) {
    throw new UsageError(`--shapes: ${(e as Error).message}`)
  }
}

function list<T extends string>(value: unknown, all: readonly T[], flag: string): T[] {
  if (value === undefined || value === 'all') return [...all]
  const picked = String(value).split(',').map((s) => s.trim())
  const unknown = picked.find((p) => !(all as readonly string[]).includes(p))
  if (unknown !== undefined) throw new UsageError(`--${flag} must be ${all.join(', ')} or all, got "${unknown}"`)
  return picked as T[]
}

export const benchCorrelationCommand: Command = {
  name: 'bench correlation',
  summary: 'Benchmark the correlation workload on generated walks: each backend and GPU kernel, against NumPy\'s corrcoef.',
  usage: 'paralab bench correlation [--series M] [--length N] [--study] [--backend B,…] [--precision f64|f32] [--repeat R] [--means V,…] [--cross V,…] [--shapes S,…|all] [--no-numpy] [--json] [--save FILE [--force]]',
  help: [
    `  --series M       series (default ${BENCH_SIZE.series})`,
    `  --length N       samples per series (default ${BENCH_SIZE.length})`,
    `  --study          the study's size, ${STUDY_SIZE.series} × ${STUDY_SIZE.length} (its serial C: 2.0 s for steps 1–5)`,
    '  --backend B,…    backends to time (default: all; gpu when a GPU is available)',
    '  --precision P    f64 (default) or f32',
    `  --repeat R       timed runs after an untimed warm-up (of the GPU kernels: ${GPU_WARMUP_MS} ms of runs, to raise its clock); medians are reported (default 5)`,
    `  --means V,…      GPU means kernels (default all: ${MEANS_VARIANTS.join(', ')})`,
    `  --cross V,…      GPU cross-product kernels (default all: ${CROSS_VARIANTS.join(', ')})`,
    '  --shapes S,…     also time the register kernel in these tile shapes, b<block>-t<rows>x<cols>-k<samples>[-c<chunk>]',
    `                   (all: ${SWEEP_SHAPES.length} shapes; default shape f64 ${DEFAULT_REGISTER_SHAPE.f64}, f32 ${DEFAULT_REGISTER_SHAPE.f32})`,
    '  --no-numpy       skip the comparison with NumPy (python3 -c, numpy.corrcoef)',
    '  --json           print the figures as one JSON object on stdout',
    ...SAVE_HELP,
  ].join('\n'),
  options: {
    series: { type: 'string' },
    length: { type: 'string' },
    study: { type: 'boolean' },
    backend: { type: 'string' },
    precision: { type: 'string' },
    repeat: { type: 'string' },
    means: { type: 'string' },
    cross: { type: 'string' },
    shapes: { type: 'string' },
    'no-numpy': { type: 'boolean' },
    json: { type: 'boolean' },
    ...SAVE_OPTIONS,
  },
  async run(values) {
    await checkSave(values.save, !!values.force)
    const size = values.study ? STUDY_SIZE : BENCH_SIZE
    const precision = (values.precision ?? 'f64') as Precision
    if (!PRECISIONS.includes(precision)) throw new UsageError(`--precision must be f64 or f32, got "${values.precision}"`)
    // The bench (every backend, the GPU) loads only when it runs.
    const { benchCorrelation } = await import('./bench')
    const result = await benchCorrelation({
      series: intOption(values.series, 'series', 2, 65_535) ?? size.series,
      length: intOption(values.length, 'length', 2, 2 ** 28) ?? size.length,
      backends: list<CorrelationBackend>(values.backend, CORRELATION_BACKENDS, 'backend'),
      precision,
      repeat: intOption(values.repeat, 'repeat', 1, 1000) ?? 5,
      means: list<MeansVariant>(values.means, MEANS_VARIANTS, 'means'),
      cross: list<CrossVariant>(values.cross, CROSS_VARIANTS, 'cross'),
      shapes: shapes(values.shapes),
      numpy: !values['no-numpy'],
      log: (line) => process.stderr.write(`${line}\n`),
    })
    await saveJson(values.save, result, !!values.force)
    if (values.json) writeJson(result)
    else process.stdout.write(describe(result))
    return 0
  },
}

function describe(r: CorrelationBenchResult): string {
  const ms = (v?: number) => (v === undefined ? 'n/a' : `${v.toFixed(v < 10 ? 2 : 1)} ms`)
  const ratio = (v: number | undefined, what: string) => (v === undefined ? '' : `  ${v.toFixed(2)}× ${what}`)
  const lines = [
    `machine   ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memory_GB} GB; GPU: ${r.machine.gpu}`,
    `size      ${r.size.series} series × ${r.size.length} samples, ${r.precision}, median of ${r.repeat}`,
    `numpy     ${r.numpy ? `corrcoef ${ms(r.numpy.median_ms)} (numpy ${r.numpy.version})` : 'not run'}`,
    `step 1    generate: cpu ${ms(r.generate.cpu_ms)}${r.generate.gpu ? `; gpu K1 ${Object.entries(r.generate.gpu.walks_ms).map(([wg, v]) => `${wg}/workgroup ${ms(v)}`).join(', ')} (+ factors ${ms(r.generate.gpu.factors_ms)})` : ''}`,
    'steps 2–5',
    ...Object.entries(r.backends).flatMap(([b, f]) => [
      `  ${b.padEnd(13)} ${ms(f.total_ms)}${ratio(f.ratio_vs_numpy, 'numpy')}${ratio(f.ratio_vs_serial, 'serial')}${f.max_abs_dr_vs_numpy !== undefined ? `  max |Δr| vs numpy ${f.max_abs_dr_vs_numpy.toExponential(1)}` : ''}`,
      `  ${''.padEnd(13)} ${Object.entries(f.stages).map(([s, v]) => `${s} ${ms(v)}`).join(', ')}${f.upload_ms !== undefined ? `; upload ${ms(f.upload_ms)}` : ''}`,
      ...Object.entries(f.kernels ?? {}).map(
        ([k, v]) =>
          `  ${''.padEnd(13)} ${k.padEnd(16)} ${ms(v.ms)}${v.TFLOP_per_s !== undefined ? `  ${v.TFLOP_per_s.toFixed(2)} TFLOP/s` : ''}  ${v.GB_per_s.toFixed(0)} GB/s${v.max_abs_dr_sampled !== undefined ? `  max |Δr| ${v.max_abs_dr_sampled.toExponential(1)} (sampled)` : ''}${k === 'cross-register' && f.register_shape ? `  shape ${f.register_shape}` : ''}`,
      ),
      ...(f.shapes ? [`  ${''.padEnd(13)} register shapes (cross-products; steps 2–5; max |Δr| on sampled pairs):`] : []),
      ...Object.entries(f.shapes ?? {}).map(
        ([k, v]) => `  ${''.padEnd(13)}   ${k.padEnd(20)} ${ms(v.ms).padStart(10)}  ${v.TFLOP_per_s.toFixed(2).padStart(6)} TFLOP/s  ${ms(v.total_ms).padStart(10)}  ${v.max_abs_dr_sampled.toExponential(1)}`,
      ),
    ]),
  ]
  return lines.concat(r.notes.map((n) => `note      ${n}`)).join('\n') + '\n'
}
