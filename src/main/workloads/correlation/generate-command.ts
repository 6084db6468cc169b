// `paralab generate walks`: the study's random walks as a CSV or .npy file, made on the CPU or (the
// study's K1) on the GPU with the same values bit for bit.
import { ApiError } from '../../../shared/errors'
import { LAYOUTS, type Layout } from '../../../shared/workloads/correlation/types'
import { intOption, numberOption, UsageError, writeJson, type Command, makeParents } from '../../terminal/command'
import { progressBar } from '../../terminal/progress'
import { getGpu } from '../../gpu/on-demand'
import { GENERATOR_WORKGROUPS, type GeneratorWorkgroup, generateWalksGpu } from './gpu/generate'
import { MAX_EPS, MIN_EPS, generateWalks, quantizeEps } from './walks'
import { onInterrupt } from '../../terminal/interrupt'

export const generateWalksCommand: Command = {
  name: 'generate walks',
  summary: 'Write a cluster of series measuring one random walk, some disturbed, as CSV, .npy, Parquet, Arrow or HDF5, for the correlation workload.',
  usage: 'paralab generate walks <out.csv|out.npy|out.parquet|out.arrow|out.h5> --series M --length N [--start V] [--eps E] [--seed S] [--anomalies K] [--layout columns|rows] [--gpu] [--workgroup W] [--force] [--json]',
  help: [
    '  --series M       series to write (at least 2)',
    '  --length N       samples per series (at least 2)',
    '  --start V        where every series starts (default 100)',
    `  --eps E          largest relative step of the common walk, ${MIN_EPS}…${MAX_EPS} (default 0.01); rounded to 8 significant bits`,
    '  --seed S         seed of the generator (default 1); the same seed gives the same values on CPU and GPU',
    '  --anomalies K    series disturbed: their noise accumulates into a walk of its own (default 0, at most M/2); listed in the output',
    '  --layout L       columns (default: a series per column, .npy and .h5 shape N × M) or rows (a series per line, .npy and .h5 shape M × N); Parquet and Arrow hold columns',
    '                   (.h5: float32 dataset /walks, chunked and deflated; read it with --dataset /walks)',
    '  --gpu            make the values with the GPU generator (K1), timed',
    `  --workgroup W    invocations per workgroup of K1: ${GENERATOR_WORKGROUPS.join(', ')} (default 64)`,
    '  --force          replace the output file if it exists',
    '  --json           print {"path","series","length","bytes","eps","anomalies"} on stdout',
  ].join('\n'),
  options: {
    series: { type: 'string' },
    length: { type: 'string' },
    start: { type: 'string' },
    eps: { type: 'string' },
    seed: { type: 'string' },
    anomalies: { type: 'string' },
    layout: { type: 'string' },
    gpu: { type: 'boolean' },
    workgroup: { type: 'string' },
    force: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1) throw new UsageError('generate walks needs exactly one output file')
    if (values.series === undefined || values.length === undefined) throw new UsageError('generate walks needs --series M and --length N')
    const layout = (values.layout ?? 'columns') as Layout
    if (!LAYOUTS.includes(layout)) throw new UsageError(`--layout must be columns or rows, got "${values.layout}"`)
    const workgroup = intOption(values.workgroup, 'workgroup', 1, 1024) ?? 64
    if (!(GENERATOR_WORKGROUPS as readonly number[]).includes(workgroup)) throw new UsageError(`--workgroup must be ${GENERATOR_WORKGROUPS.join(', ')}, got "${values.workgroup}"`)
    const options = {
      series: intOption(values.series, 'series', 2, 2 ** 24)!,
      length: intOption(values.length, 'length', 2, 2 ** 28)!,
      start: numberOption(values.start, 'start', -1e30, 1e30) ?? 100,
      eps: numberOption(values.eps, 'eps', MIN_EPS, MAX_EPS) ?? 0.01,
      seed: intOption(values.seed, 'seed', 0, 2 ** 32 - 1) ?? 1,
      anomalies: intOption(values.anomalies, 'anomalies', 0, 2 ** 24) ?? 0,
    }
    await makeParents(positionals)
    const bar = progressBar()
    const controller = new AbortController()
    const stopListening = onInterrupt(() => controller.abort())
    try {
      let walks: { values: Float32Array; anomalies: number[] }
      let gpuMs: { factors: number; walks: number } | undefined
      if (values.gpu) {
        bar.update({ phase: `generating on the GPU (K1, ${workgroup} per workgroup)`, fraction: 0 })
        const made = await generateWalksGpu(await getGpu(), options, workgroup as GeneratorWorkgroup, controller.signal)
        walks = made
        gpuMs = made.ms
      } else walks = generateWalks(options, (f) => bar.update({ phase: 'generating', fraction: 0.5 * f }))
      const out = positionals[0]
      const { writeSeries } = await import('./write-walks')
      const bytes = await writeSeries(out, walks.values, options.series, options.length, {
        layout,
        force: values.force,
        signal: controller.signal,
        progress: (f) => bar.update({ phase: 'writing', fraction: 0.5 + 0.5 * f }),
      }).catch((e: unknown) => {
        throw controller.signal.aborted ? new ApiError('cancelled', 'cancelled: nothing was written') : e
      })
      bar.done(true)
      const eps = quantizeEps(options.eps).value
      const anomalies = walks.anomalies.map((i) => `s${i}`)
      if (values.json) writeJson({ path: out, series: options.series, length: options.length, layout, bytes, eps, anomalies, ...(gpuMs && { gpu_ms: gpuMs }) })
      else {
        process.stdout.write(`wrote ${out}: ${options.series} series × ${options.length} samples, ${(bytes / 1e6).toFixed(1)} MB; eps ${eps}\n`)
        process.stdout.write(`anomalies: ${anomalies.length ? anomalies.join(', ') : 'none'}\n`)
        if (gpuMs) process.stdout.write(`GPU: common factors ${gpuMs.factors.toFixed(2)} ms, walks (K1, ${workgroup} per workgroup) ${gpuMs.walks.toFixed(2)} ms\n`)
      }
      return 0
    } finally {
      bar.done(false)
      stopListening()
    }
  },
}
