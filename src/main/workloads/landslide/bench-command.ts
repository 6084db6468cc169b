// `paralab bench landslide`: every backend (and GPU kernel, where a GPU is) on one grid, each run
// `repeat` times, as the landslide job runs them; medians, the ratio of each to `serial` measured in
// the same run, every f64 and double-float output's md5 and every GPU output's deviation. The
// study's Tessina grids by --header/--dem/--source; without them, the example's synthetic slope.
// --tile R×C repeats the grids into one large grid in memory (tiled-grid.ts). With --ranks 1,2,4 and
// one backend of serial, active or gpu, the job runs in ranks instead (bench-ranks.ts).
import {
  GPU_VARIANTS,
  LANDSLIDE_BACKENDS,
  LANDSLIDE_PRECISIONS,
  type LandslidePrecision,
} from '../../../shared/workloads/landslide/types'
import { GPU_WARMUP_MS } from '../../gpu/timing'
import { intOption, UsageError, writeJson, type Command } from '../../terminal/command'
import { checkSave, SAVE_HELP, SAVE_OPTIONS, saveJson } from '../../terminal/save-flag'
import { DOUBLE_FLOAT_VARIANTS } from './gpu/kernels'
import type { RankBackend } from './bench-ranks'

function list<C extends string>(value: unknown, flag: string, choices: readonly C[], fallback: readonly C[]): C[] {
  if (value === undefined) return [...fallback]
  if (value === 'all') return [...choices]
  const picked = String(value).split(',').map((s) => s.trim())
  const bad = picked.find((c) => !(choices as readonly string[]).includes(c))
  if (bad !== undefined) throw new UsageError(`--${flag} must be ${choices.join(', ')} or all, got "${bad}"`)
  return picked as C[]
}

export const benchLandslideCommand: Command = {
  name: 'bench landslide',
  summary: 'Benchmark the landslide workload: every backend and GPU kernel, medians and ratios against serial.',
  usage:
    'paralab bench landslide [--header F] [--dem F --source F] [--steps N] [--backend B,…|all] [--variant V,…|all] [--precision P] [--tile RxC] [--ranks N] [--gpu-bands N [--exchange-every S]] [--repeat R] [--warmup MS] [--json] [--save FILE [--force]]\n' +
    '       paralab bench landslide … --backend serial|active|gpu --ranks 1,2,4 [--exchange-every S] [--rank-timeout S] [--slurm | --executor local --out DIR]\n' +
    '       paralab bench landslide … --baseline c [--steps N] [--tile RxC] [--repeat R]',
  help: [
    '  --header F, --dem F, --source F   the grids (the study\'s three files, or two .asc); default the example\'s slope',
    '  --steps N          steps (default 4000)',
    '  --backend B,…      backends to time (default: all; gpu when a GPU is available)',
    '  --variant V,…      GPU kernels to time (default: all; under accurate, those with double-float kernels)',
    '  --precision P      the gpu backend\'s arithmetic: f32 (default), accurate (double-float, md5 shown) or f64 (WebGPU has none: double-float); CPU backends run f64',
    '  --tile RxC         repeat the grids R times down and C across into one grid, built in memory (walls kept);',
    '                     with only gpu asked for, the f64 reference is the original\'s active run tiled when no debris nears its border',
    '  --ranks N          row bands of the workers backends (default: the number of cores)',
    '  --ranks 1,2,4      with one backend of serial, active or gpu: the job in ranks (processes, halos over TCP, gpu: a GPU',
    '                     each) on each count; medians, efficiency against 1 rank, exchange time, md5 per count',
    '  --slurm, --executor local   with --ranks: each run as `paralab landslide … --ntasks R` on the cluster (or its local',
    '                     executor), results under --out DIR (grids from files: no --tile)',
    '  --rank-timeout S   with --ranks 1,2,4: a rank that sends nothing for S seconds is named and the run fails (default 180)',
    '  --rank-task        how the bench\'s own ranks run (started by --ranks, with SLURM_PROCID, SLURM_NTASKS, PARALAB_JOB_DIR);',
    '                     --grid-out FILE: rank 0 writes the final grid (f64) to FILE, a new file, and skips the f64 reference',
    '  --gpu-bands N      row bands of the gpu backend, each a process on a GPU of its own where a fence can give it one',
    '                     (as --ranks N does; the results say where each band ran), else sharing the GPU (default 1)',
    '  --exchange-every S  GPU bands and ranks: steps between halo exchanges',
    '  --repeat R         runs per backend (with --ranks: per count); the median is reported (default 5; with --ranks 3)',
    '  --warmup MS        untimed GPU steps for this long before each GPU kernel\'s runs, so that they find the GPU\'s clock',
    `                     up rather than idle (default ${GPU_WARMUP_MS}; 0: none)`,
    '  --baseline c       the study\'s serial program (bench/sciddicat.c), built here with the C compiler ($CC, cc, gcc or',
    '                     clang) into a temporary folder, against the serial backend: runs alternated, wall and CPU medians,',
    '                     the ratio serial ÷ C, and both outputs\' md5 (no other backend runs)',
    '  --json             print the figures as one JSON object on stdout',
    ...SAVE_HELP,
  ].join('\n'),
  options: {
    header: { type: 'string' },
    dem: { type: 'string' },
    source: { type: 'string' },
    steps: { type: 'string' },
    backend: { type: 'string' },
    variant: { type: 'string' },
    precision: { type: 'string' },
    ranks: { type: 'string' },
    'rank-task': { type: 'boolean' },
    'grid-out': { type: 'string' },
    'rank-timeout': { type: 'string' },
    slurm: { type: 'boolean' },
    executor: { type: 'string' },
    out: { type: 'string' },
    'gpu-bands': { type: 'string' },
    'exchange-every': { type: 'string' },
    tile: { type: 'string' },
    baseline: { type: 'string' },
    repeat: { type: 'string' },
    warmup: { type: 'string' },
    json: { type: 'boolean' },
    ...SAVE_OPTIONS,
  },
  async run(values) {
    await checkSave(values.save, !!values.force)
    // The bench, its ranks and the simulations load only when it runs.
    const [{ benchLandslide, describe }, { benchRanks, describeRanks, runBenchRank }, { parseTiling, TILE_EXPECTED }] = await Promise.all([import('./bench'), import('./bench-ranks'), import('./tiled-grid')])
    if ((values.dem === undefined) !== (values.source === undefined)) throw new UsageError('--dem and --source go together')
    if (values.header !== undefined && values.dem === undefined) throw new UsageError('--header needs --dem and --source')
    const precision = (values.precision ?? 'f32') as LandslidePrecision
    if (!(LANDSLIDE_PRECISIONS as readonly string[]).includes(precision))
      throw new UsageError(`--precision must be one of ${LANDSLIDE_PRECISIONS.join(', ')}, got "${precision}"`)
    const tile = values.tile === undefined ? undefined : parseTiling(values.tile)
    if (values.tile !== undefined && !tile) throw new UsageError(`--tile must be ${TILE_EXPECTED}, got "${values.tile}"`)
    const backends = list(values.backend, 'backend', LANDSLIDE_BACKENDS, LANDSLIDE_BACKENDS)
    const variants = list(values.variant, 'variant', GPU_VARIANTS, precision === 'f32' ? GPU_VARIANTS : DOUBLE_FLOAT_VARIANTS)
    const files = values.dem === undefined ? undefined : [...(values.header ? [values.header] : []), values.dem, values.source]
    const steps = intOption(values.steps, 'steps', 0, 1_000_000) ?? 4000
    const warmup = intOption(values.warmup, 'warmup', 0, 60_000) ?? GPU_WARMUP_MS
    const exchangeEvery = intOption(values['exchange-every'], 'exchange-every', 1, 100_000)
    if (values['grid-out'] !== undefined && !values['rank-task']) throw new UsageError('--grid-out goes with --rank-task')
    const inRanks = values['rank-task'] || (values.ranks !== undefined && backends.length === 1 && ['serial', 'active', 'gpu'].includes(backends[0]))
    if (values.ranks !== undefined && !inRanks && String(values.ranks).includes(','))
      throw new UsageError('--ranks with a list (e.g. 1,2,4) runs the job in ranks: give one backend of serial, active or gpu')
    if (inRanks) {
      if (!files) throw new UsageError('--ranks: give the grids (--header/--dem/--source, or --dem/--source)')
      if (variants.length !== 1 && backends[0] === 'gpu') throw new UsageError('--ranks with gpu: give one --variant')
      const rankTimeout = intOption(values['rank-timeout'], 'rank-timeout', 1, 86_400)
      const common = { files, tile, steps, backend: backends[0] as RankBackend, variant: variants[0], precision, exchangeEvery, warmup, rankTimeout }
      if (values['rank-task']) {
        await runBenchRank({ ...common, ...(values['grid-out'] !== undefined && { gridOut: values['grid-out'] }) })
        return 0
      }
      const counts = String(values.ranks).split(',').map((t) => intOption(t.trim(), 'ranks', 1, 256)!)
      const executor = values.executor ?? (values.slurm ? 'slurm' : undefined)
      if (executor !== undefined && executor !== 'slurm' && executor !== 'local') throw new UsageError(`--executor must be slurm or local, got "${executor}"`)
      if (executor && !values.out) throw new UsageError(`--${values.slurm ? 'slurm' : 'executor'} needs --out DIR: the runs' job folders go there`)
      if (executor && tile) throw new UsageError('--tile builds the grid in memory, and a cluster job reads its grids from files: run the ranks here (without --slurm or --executor), or give the tiled grids as files')
      const result = await benchRanks({ ...common, counts, repeat: intOption(values.repeat, 'repeat', 1, 100) ?? 3, ...(executor && { cluster: { executor, out: values.out } }), log: (line) => process.stderr.write(`${line}\n`) })
      await saveJson(values.save, result, !!values.force)
      if (values.json) writeJson(result)
      else process.stdout.write(describeRanks(result))
      return 0
    }
    if (values.slurm || values.executor || values.out) throw new UsageError('--slurm, --executor and --out go with --ranks 1,2,… (the job in ranks)')
    if (values.baseline !== undefined) {
      if (values.baseline !== 'c') throw new UsageError(`--baseline must be c (the study's program), got "${values.baseline}"`)
      if (values.backend !== undefined && values.backend !== 'serial') throw new UsageError('--baseline c runs against the serial backend: leave out --backend, or give --backend serial')
      const { benchC } = await import('./bench')
      const { describeC } = await import('./c-baseline')
      const result = await benchC({ files, tile, steps, repeat: intOption(values.repeat, 'repeat', 1, 100) ?? 5, log: (line) => process.stderr.write(`${line}\n`) })
      await saveJson(values.save, result, !!values.force)
      if (values.json) writeJson(result)
      else {
        const { input } = result
        process.stdout.write(`input     ${input.files.join(', ')}${input.tile ? ` tiled ${input.tile}` : ''}: ${input.rows} × ${input.cols} cells, ${input.walls} walls\n` + describeC(result.baseline, steps))
      }
      return 0
    }
    const result = await benchLandslide({
      files,
      steps,
      backends,
      variants,
      precision,
      ranks: intOption(values.ranks, 'ranks', 1, 256),
      gpuBands: intOption(values['gpu-bands'], 'gpu-bands', 1, 64),
      exchangeEvery,
      tile,
      repeat: intOption(values.repeat, 'repeat', 1, 100) ?? 5,
      warmup,
      log: (line) => process.stderr.write(`${line}\n`),
    })
    await saveJson(values.save, result, !!values.force)
    if (values.json) writeJson(result)
    else process.stdout.write(describe(result))
    return 0
  },
}
