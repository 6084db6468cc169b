// `paralab bench correlation`: steps 2–5 on generated walks, each backend's median against NumPy's
// corrcoef on the same data in the same run (python3 with numpy, when present), the GPU kernels'
// times and throughput, and step 1 (the generator) on the CPU and as the study's K1 on the GPU.
// With shapes, the register cross-product kernel is also timed in each tile shape (a tuning sweep).
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { adapterName } from '../../../shared/device'
import { ApiError } from '../../../shared/errors'
import { median } from '../../../shared/median'
import { type CorrelationBackend, type CrossVariant, type MeansVariant, type Precision, STAGES, type Stage } from '../../../shared/workloads/correlation/types'
import { GPU_WARMUP_MS, getGpu, gpuInfo, warmUp } from '../../gpu/runtime'
import { createCpuCorrelationEngine } from './cpu-engine'
import { GENERATOR_WORKGROUPS, generateWalksGpu, workgroupUnavailable } from './gpu/generate'
import { createGpuCorrelationEngine } from './gpu/gpu-engine'
import { meansUnavailable } from './gpu/kernels'
import { type RegisterShape, shapeName, shapeUnavailable } from './gpu/register-shapes'
import { npyHeader } from './npy'
import { readNpy } from './read-npy'
import { maxAbsDifference } from './ranking'
import { sampledDeviation, samplePairs } from './sampled-deviation'
import { indexNames, seriesMatrix } from './series-matrix'
import { correlationWasmBuild } from './simd/wasm-module'
import { generateWalks } from './walks'
import { BENCH_SIZE, STUDY_SIZE } from './bench-sizes'

export { BENCH_SIZE, STUDY_SIZE }
const WALK = { start: 100, eps: 0.01, seed: 1, anomalies: 8 }

export interface CorrelationBenchOptions {
  series: number
  length: number
  backends: CorrelationBackend[]
  precision: Precision
  repeat: number
  means: MeansVariant[]
  cross: CrossVariant[]
  numpy: boolean
  /** Tile shapes of the register kernel to time besides the default (the GPU's tuning sweep). */
  shapes?: RegisterShape[]
  log: (line: string) => void
}

/** Pairs whose r the GPU's matrices are checked on against f64 (a full reference would take hours at M = 16 384). */
const SAMPLED_PAIRS = 20_000

/** The register kernel in one tile shape: its median ms, throughput, steps 2–5 with it, and its accuracy on sampled pairs. */
export interface ShapeFigures {
  ms: number
  TFLOP_per_s: number
  total_ms: number
  max_abs_dr_sampled: number
}

export interface BackendFigures {
  /** Steps 2–5, median ms. */
  total_ms: number
  stages: Record<Stage, number>
  ratio_vs_numpy?: number
  ratio_vs_serial?: number
  threads?: number
  upload_ms?: number
  /** GPU: each kernel's median ms, the cross-products' TFLOP/s and max |Δr| against f64 on sampled pairs. */
  kernels?: Record<string, { ms: number; TFLOP_per_s?: number; GB_per_s: number; max_abs_dr_sampled?: number }>
  /** GPU: the register kernel's tile shape in the figures above. */
  register_shape?: string
  /** GPU: the register kernel in each shape of the sweep, by name. */
  shapes?: Record<string, ShapeFigures>
  max_abs_dr_vs_numpy?: number
}

export interface CorrelationBenchResult {
  machine: { cpu: string; cores: number; memory_GB: number; gpu: string }
  size: { series: number; length: number }
  precision: Precision
  repeat: number
  /** Step 1: the generator, ms. */
  generate: { cpu_ms: number; gpu?: { factors_ms: number; walks_ms: Record<string, number> } }
  backends: Record<string, BackendFigures>
  numpy?: { median_ms: number; version: string }
  notes: string[]
}

/** NumPy's corrcoef on the rows of a .npy file, timed in its own process; its matrix saved beside. */
const NUMPY_SCRIPT = `
import json, sys, time
import numpy as np
x = np.load(sys.argv[1])
reps = int(sys.argv[2])
np.corrcoef(x)
ms = []
for _ in range(reps):
    t = time.perf_counter()
    r = np.corrcoef(x)
    ms.append((time.perf_counter() - t) * 1000)
np.save(sys.argv[3], r)
print(json.dumps({"ms": ms, "version": np.__version__}))
`

function hasNumpy(): boolean {
  return spawnSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0
}

function runPython(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', NUMPY_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new ApiError('internal', `numpy's corrcoef failed: ${err.trim().split('\n').pop()}`))))
  })
}

export async function benchCorrelation(opts: CorrelationBenchOptions): Promise<CorrelationBenchResult> {
  const notes: string[] = []
  const { series: m, length: n } = opts
  const walk = { ...WALK, series: m, length: n }
  opts.log(`generating ${m} series × ${n} samples (seed ${WALK.seed})…`)
  const t0 = performance.now()
  const walks = generateWalks(walk)
  const generateCpu = performance.now() - t0
  const series = seriesMatrix(indexNames(m), Float64Array.from(walks.values), m, n)
  const info = await gpuInfo()
  const result: CorrelationBenchResult = {
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memory_GB: Math.round(totalmem() / 2 ** 30), gpu: info.available ? adapterName(info.adapter!) : `none (${info.reason})` },
    size: { series: m, length: n },
    precision: opts.precision,
    repeat: opts.repeat,
    generate: { cpu_ms: generateCpu },
    backends: {},
    notes,
  }
  opts.log(`generate: cpu ${generateCpu.toFixed(0)} ms`)

  // The baseline first, so that every ratio is against this run's NumPy.
  const dir = await mkdtemp(join(tmpdir(), 'paralab-bench-correlation-'))
  let numpyMatrix: Float64Array | undefined
  try {
    if (opts.numpy && hasNumpy()) {
      const input = join(dir, 'series.npy')
      const bytes = new Uint8Array(series.values.buffer, series.values.byteOffset, series.values.byteLength)
      const header = npyHeader('<f8', [m, n])
      await writeFile(input, Buffer.concat([header, bytes]))
      const out = JSON.parse(await runPython([input, String(opts.repeat), join(dir, 'r.npy')])) as { ms: number[]; version: string }
      result.numpy = { median_ms: median(out.ms), version: out.version }
      numpyMatrix = (await readNpy(join(dir, 'r.npy'), { layout: 'rows' })).values
      opts.log(`numpy ${out.version} corrcoef: ${result.numpy.median_ms.toFixed(1)} ms`)
    } else if (opts.numpy) notes.push('numpy comparison skipped: python3 with numpy is not installed')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }

  for (const backend of opts.backends) {
    if (backend === 'gpu') {
      if (!info.available) {
        notes.push(`gpu skipped: ${info.reason}`)
        continue
      }
      result.backends.gpu = await benchGpu(series, opts, result, notes)
    } else {
      const engine = await createCpuCorrelationEngine(backend, series, opts.precision)
      try {
        await engine.run()
        const runs: Record<Stage, number>[] = []
        for (let r = 0; r < opts.repeat; r++) runs.push(await engine.run())
        const figures = figuresOf(runs)
        figures.threads = engine.threads
        if (numpyMatrix) figures.max_abs_dr_vs_numpy = maxAbsDifference(engine.matrix(), numpyMatrix, m)
        result.backends[backend] = figures
      } finally {
        await engine.dispose()
      }
    }
    opts.log(`${backend}: ${result.backends[backend]?.total_ms.toFixed(1)} ms`)
  }
  if (opts.backends.some((b) => b === 'simd' || b === 'workers-simd'))
    notes.push(correlationWasmBuild() === 'relaxed' ? 'simd kernels: relaxed SIMD (fused multiply-adds, 6 × 2 micro-kernel)' : 'simd kernels: SIMD128 (this V8 has no relaxed SIMD)')
  for (const figures of Object.values(result.backends)) {
    if (result.numpy) figures.ratio_vs_numpy = figures.total_ms / result.numpy.median_ms
    if (result.backends.serial) figures.ratio_vs_serial = figures.total_ms / result.backends.serial.total_ms
  }
  return result
}

function figuresOf(runs: Record<Stage, number>[]): BackendFigures {
  const stages = Object.fromEntries(STAGES.map((s) => [s, median(runs.map((r) => r[s]))])) as Record<Stage, number>
  return { total_ms: median(runs.map((r) => STAGES.reduce((sum, s) => sum + r[s], 0))), stages }
}

async function benchGpu(series: ReturnType<typeof seriesMatrix>, opts: CorrelationBenchOptions, result: CorrelationBenchResult, notes: string[]): Promise<BackendFigures> {
  const gpu = await getGpu()
  const walks: Record<string, number> = {}
  let factors = 0
  for (const wg of GENERATOR_WORKGROUPS) {
    const why = workgroupUnavailable(gpu, wg)
    if (why) {
      notes.push(`generator K1 with ${wg}: ${why}`)
      continue
    }
    const samples: number[] = []
    for (let r = 0; r <= opts.repeat; r++) {
      const made = await generateWalksGpu(gpu, { ...WALK, series: series.m, length: series.n }, wg)
      if (r > 0) samples.push(made.ms.walks)
      factors = made.ms.factors
    }
    walks[String(wg)] = median(samples)
    opts.log(`generate: gpu K1 with ${wg} per workgroup ${walks[String(wg)].toFixed(2)} ms`)
  }
  result.generate.gpu = { factors_ms: factors, walks_ms: walks }

  const means = opts.means.filter((v) => {
    const why = meansUnavailable(gpu, v)
    if (why) notes.push(`means-${v} skipped: ${why}`)
    return !why
  })
  const pairs = samplePairs(series.m, SAMPLED_PAIRS)
  const engine = await createGpuCorrelationEngine(gpu, series, opts.precision, { means, cross: opts.cross })
  try {
    // The matrices are read back once, for the check; the timed runs leave them on the GPU.
    const deviation: Record<string, number> = {}
    await engine.run({ cross: (v, got) => (deviation[v] = sampledDeviation(series, got, pairs)) })
    await warmUp(() => engine.run({}, { download: false }), GPU_WARMUP_MS)
    const runs: Awaited<ReturnType<typeof engine.run>>[] = []
    for (let r = 0; r < opts.repeat; r++) runs.push(await engine.run({}, { download: false }))
    const work = engine.work()
    const kernels: NonNullable<BackendFigures['kernels']> = {}
    for (const v of means) {
      const ms = median(runs.map((t) => t.means[v]!))
      kernels[`means-${v}`] = { ms, GB_per_s: work.means.bytes / ms / 1e6 }
    }
    for (const v of opts.cross) {
      const ms = median(runs.map((t) => t.cross[v]!.cross))
      kernels[`cross-${v}`] = { ms, TFLOP_per_s: work.cross[v].flop / ms / 1e9, GB_per_s: work.cross[v].bytes / ms / 1e6, max_abs_dr_sampled: deviation[v] }
    }
    // Steps 2–5 with the fastest kernel of each stage.
    const bestMeans = means.reduce((a, b) => (kernels[`means-${b}`].ms < kernels[`means-${a}`].ms ? b : a))
    const bestCross = opts.cross.reduce((a, b) => (kernels[`cross-${b}`].ms < kernels[`cross-${a}`].ms ? b : a))
    const stageRuns = runs.map((t) => ({ means: t.means[bestMeans]!, squares: t.squares, cross: t.cross[bestCross]!.cross, coefficients: t.cross[bestCross]!.coefficients }))
    const figures: BackendFigures = { ...figuresOf(stageRuns), upload_ms: engine.uploadMs, kernels }
    if (opts.cross.includes('register')) figures.register_shape = shapeName(engine.register)
    engine.dispose()
    if (opts.shapes?.length) figures.shapes = await benchShapes(gpu, series, opts, bestMeans, pairs, notes)
    return figures
  } finally {
    engine.dispose()
  }
}

/** The register kernel in each shape, on an engine of its own (steps 2–5 with the fastest means kernel). */
async function benchShapes(
  gpu: Awaited<ReturnType<typeof getGpu>>,
  series: ReturnType<typeof seriesMatrix>,
  opts: CorrelationBenchOptions,
  means: MeansVariant,
  pairs: [number, number][],
  notes: string[],
): Promise<Record<string, ShapeFigures>> {
  const out: Record<string, ShapeFigures> = {}
  // Chunks only matter to the compensated (f64) mode.
  const shapes = opts.precision === 'f64' ? opts.shapes! : opts.shapes!.filter((s, i, all) => all.findIndex((t) => t.block === s.block && t.tm === s.tm && t.tn === s.tn && t.bk === s.bk) === i)
  for (const shape of shapes) {
    const name = shapeName(shape)
    const why = shapeUnavailable(gpu, shape)
    if (why) {
      notes.push(`register shape ${name} skipped: ${why}`)
      continue
    }
    // One shape failing (a pipeline the driver refuses, memory) is noted; the sweep goes on.
    let engine: Awaited<ReturnType<typeof createGpuCorrelationEngine>> | undefined
    try {
      engine = await createGpuCorrelationEngine(gpu, series, opts.precision, { means: [means], cross: ['register'], register: shape })
      let deviation = NaN
      await engine.run({ cross: (_, got) => (deviation = sampledDeviation(series, got, pairs)) })
      await warmUp(() => engine!.run({}, { download: false }), GPU_WARMUP_MS)
      const runs: Awaited<ReturnType<typeof engine.run>>[] = []
      for (let r = 0; r < opts.repeat; r++) runs.push(await engine.run({}, { download: false }))
      const ms = median(runs.map((t) => t.cross.register!.cross))
      const total = median(runs.map((t) => t.means[means]! + t.squares + t.cross.register!.cross + t.cross.register!.coefficients))
      out[name] = { ms, TFLOP_per_s: engine.work().cross.register.flop / ms / 1e9, total_ms: total, max_abs_dr_sampled: deviation }
      opts.log(`register ${name}: ${ms.toFixed(2)} ms, ${out[name].TFLOP_per_s.toFixed(2)} TFLOP/s, steps 2–5 ${total.toFixed(1)} ms, max |Δr| ${deviation.toExponential(1)} (sampled)`)
    } catch (e) {
      notes.push(`register shape ${name} failed: ${ApiError.from(e).message}`)
      opts.log(`register ${name}: failed`)
    } finally {
      engine?.dispose()
    }
  }
  return out
}
