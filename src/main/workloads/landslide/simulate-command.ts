// `paralab landslide simulate`: one simulation whose grids are written out, as the study's program
// did: the final thickness in the reference format (--output, md5-comparable), as an ESRI grid with
// the DEM's header (--asc) or a NumPy array (--npy), and frames every K steps (--frames K into
// --frames-dir, or drawn over the hillshaded DEM as an animated GIF with --gif); --png draws the final
// thickness over the relief. Every file is written whole or not at all; the targets are checked before the run.
import { access, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { availableParallelism } from 'node:os'
import { ApiError } from '../../../shared/errors'
import { thicknessGif } from '../../../shared/workloads/landslide/thickness-animation'
import {
  GPU_VARIANTS,
  gpuArithmetic,
  LANDSLIDE_BACKENDS,
  LANDSLIDE_PRECISIONS,
  type GpuVariant,
  type LandslideBackend,
  type LandslidePrecision,
  type RunArithmetic,
} from '../../../shared/workloads/landslide/types'
import { getGpu } from '../../gpu/runtime'
import { writeFileAtomic } from '../../io/atomic-write'
import { intOption, UsageError, writeJson, type Command } from '../../cli/command'
import { snapshot, thicknessMaps, type Snapshot } from './grid-stats'
import { ascText, npyBytes } from './grid-writers'
import { hillshadeMap } from './hillshade'
import { readLandslideInput } from './inputs'
import { md5Hex, referenceText } from './reference-format'
import { createSimulation } from './run-landslide'
import { initialState } from './simulation'
import { lastFramePng, nodeRasterize } from './thickness-files'

export interface SimulateOptions {
  header?: string
  dem: string
  source: string
  steps: number
  backend: LandslideBackend
  variant: GpuVariant
  /** The gpu backend's arithmetic (default f32; CPU backends always run f64). */
  precision?: LandslidePrecision
  ranks: number
  stepsPerSubmit?: number
  /** Row bands of the gpu backend, each on its own GPU where there are several (default 1). */
  gpuBands?: number
  exchangeEvery?: number
  /** Frames every K steps: as .npy files into `dir`, and/or drawn into the animation `gif`. */
  frames?: { every: number; dir?: string; gif?: string }
  /** The final thickness over the hillshaded DEM. */
  png?: string
  output?: string
  asc?: string
  npy?: string
  force: boolean
}

export interface SimulateSummary {
  backend: string
  /** The arithmetic the run used: f64 on the CPU, f32 or double-float on the GPU. */
  precision: RunArithmetic
  steps: number
  rows: number
  cols: number
  /** md5 of the final grid in the reference format. */
  md5: string
  mass_start: number
  mass_end: number
  ms: number
  written: string[]
}

/** Refuses, before any work, a target that exists (without force) or whose folder is missing. */
export async function checkTarget(path: string, force: boolean, folder = false): Promise<void> {
  const s = await stat(path).catch(() => null)
  if (folder) {
    if (!s?.isDirectory()) throw new ApiError('io', `${path}: no such folder for the frames`)
    return
  }
  if (s && !force) throw new ApiError('io', `${path} exists (use --force to overwrite)`)
  if (s?.isDirectory()) throw new ApiError('io', `cannot write ${path}: it is a folder`)
  const parent = dirname(path)
  await access(parent).catch(() => {
    throw new ApiError('io', `cannot write ${path}: its folder ${parent} does not exist`)
  })
}

const sum = (a: Float64Array) => a.reduce((s, v) => s + v, 0)

export async function simulate(opts: SimulateOptions): Promise<SimulateSummary> {
  for (const target of [opts.output, opts.asc, opts.npy, opts.png, opts.frames?.gif]) if (target) await checkTarget(target, opts.force)
  if (opts.frames?.dir) await checkTarget(opts.frames.dir, opts.force, true)
  const shown = [...(opts.header ? [opts.header] : []), opts.dem, opts.source]
  const input = await readLandslideInput(shown, shown)
  const state = initialState(input)
  const sim = await createSimulation({ backend: opts.backend, variant: opts.variant }, state, { steps: opts.steps, stepsPerSubmit: opts.stepsPerSubmit, precision: opts.precision ?? 'f32', gpuBands: opts.gpuBands, exchangeEvery: opts.exchangeEvery }, opts.ranks, { gpu: getGpu })
  const written: string[] = []
  const digits = String(opts.steps).length
  // The debris' box at each frame drawn (every frame for --gif; the first and last for --png alone).
  const drawn: Snapshot[] = []
  const frame = async () => {
    const h = await sim.thickness()
    if (opts.frames?.gif || (opts.png && sim.done === 0)) drawn.push(snapshot(sim.done, h, input.rows, input.cols))
    if (!opts.frames?.dir) return
    const path = join(opts.frames.dir, `h-${String(sim.done).padStart(digits, '0')}.npy`)
    await writeFileAtomic(path, npyBytes(h, input.rows, input.cols), { overwrite: opts.force })
    written.push(path)
  }
  let ms = 0
  let h: Float64Array
  try {
    if (opts.frames || opts.png) await frame()
    while (sim.done < opts.steps) {
      const next = opts.frames ? Math.min(opts.steps, sim.done + opts.frames.every) : opts.steps
      const t = performance.now()
      await sim.advance(next - sim.done)
      ms += performance.now() - t
      if (opts.frames) await frame()
    }
    h = (await sim.thickness()).slice()
  } finally {
    await sim.dispose()
  }
  if (opts.png && drawn.at(-1)?.step !== opts.steps) drawn.push(snapshot(opts.steps, h, input.rows, input.cols))
  const text = referenceText(h, input.rows, input.cols)
  if (opts.output) {
    await writeFileAtomic(opts.output, text, { overwrite: opts.force })
    written.push(opts.output)
  }
  if (opts.asc) {
    await writeFileAtomic(opts.asc, ascText(h, input.header, input.walls), { overwrite: opts.force })
    written.push(opts.asc)
  }
  if (opts.npy) {
    await writeFileAtomic(opts.npy, npyBytes(h, input.rows, input.cols), { overwrite: opts.force })
    written.push(opts.npy)
  }
  if (drawn.length) {
    // One window and one relief for every frame, as a job's maps have.
    const maps = thicknessMaps(drawn, input.rows, input.cols)
    const frames = {
      steps: opts.steps,
      grid: { rows: input.rows, cols: input.cols, cellsize: input.header.cellsize, xllcorner: input.header.xllcorner, yllcorner: input.header.yllcorner },
      maps,
      hillshade: hillshadeMap(state.z, input.rows, input.cols, input.walls, input.header.cellsize, maps[0]),
    }
    if (opts.png) {
      await writeFileAtomic(opts.png, await lastFramePng(frames), { overwrite: opts.force })
      written.push(opts.png)
    }
    if (opts.frames?.gif) {
      await writeFileAtomic(opts.frames.gif, await thicknessGif(frames, nodeRasterize), { overwrite: opts.force })
      written.push(opts.frames.gif)
    }
  }
  return {
    backend: opts.backend === 'gpu' ? `gpu/${opts.variant}` : opts.backend,
    precision: opts.backend === 'gpu' ? gpuArithmetic(opts.precision ?? 'f32') : 'f64',
    steps: opts.steps,
    rows: input.rows,
    cols: input.cols,
    md5: md5Hex(text),
    mass_start: sum(input.h),
    mass_end: sum(h),
    ms,
    written,
  }
}

function choice<C extends string>(value: unknown, flag: string, choices: readonly C[], fallback: C): C {
  if (value === undefined) return fallback
  if (!(choices as readonly string[]).includes(String(value))) throw new UsageError(`--${flag} must be one of ${choices.join(', ')}, got "${value}"`)
  return value as C
}

export const simulateCommand: Command = {
  name: 'landslide simulate',
  summary: 'Run one landslide simulation and write its grids (reference format, ESRI .asc, .npy, frames) and pictures (PNG, animated GIF).',
  usage:
    'paralab landslide simulate --dem FILE [--header FILE] --source FILE [--steps N] [--backend B] [--variant V] [--precision P] [--ranks N] [--gpu-bands N [--exchange-every S]] [--output FILE] [--asc FILE] [--npy FILE] [--png FILE] [--frames K [--frames-dir DIR] [--gif FILE]] [--force] [--json]',
  help: [
    '  --dem FILE          the DEM: an ESRI ASCII grid, or the study\'s grid without header (then --header)',
    '  --header FILE       the study\'s header file, for a DEM and source without headers',
    '  --source FILE       the initial debris thickness, in the DEM\'s form',
    '  --steps N           steps (default 4000)',
    `  --backend B         ${LANDSLIDE_BACKENDS.join(', ')} (default active)`,
    `  --variant V         GPU kernel: ${GPU_VARIANTS.join(', ')} (default fused)`,
    '  --precision P       the gpu backend\'s arithmetic: f32 (default), accurate (double-float pairs of f32,',
    '                      ~48 bits) or f64 (WebGPU has none: double-float too); CPU backends run f64',
    '  --ranks N           row bands of the workers backends (default: the number of cores)',
    '  --steps-per-submit N  GPU steps per command buffer',
    '  --gpu-bands N       row bands of the gpu backend, one GPU each where there are several (default 1)',
    '  --exchange-every S  GPU bands: steps between halo exchanges (2 × S halo rows a side)',
    '  --output FILE       the final thickness in the reference program\'s format (its md5 is the check)',
    '  --asc FILE          the final thickness as an ESRI ASCII grid with the DEM\'s header (QGIS, GDAL)',
    '  --npy FILE          the final thickness as a NumPy float64 array, rows × columns',
    '  --png FILE          the final thickness over the hillshaded DEM, with its scale in metres, as PNG',
    '  --frames K          also record the thickness every K steps (and at step 0), for --frames-dir and --gif',
    '  --frames-dir DIR    the existing folder the frames go to, as h-<step>.npy',
    '  --gif FILE          the frames drawn over the hillshaded DEM as an animated GIF',
    '  --force             overwrite existing files',
    '  --json              print the summary (md5, mass at start and end, time, files) as JSON',
  ].join('\n'),
  options: {
    dem: { type: 'string' },
    header: { type: 'string' },
    source: { type: 'string' },
    steps: { type: 'string' },
    backend: { type: 'string' },
    variant: { type: 'string' },
    precision: { type: 'string' },
    ranks: { type: 'string' },
    'steps-per-submit': { type: 'string' },
    'gpu-bands': { type: 'string' },
    'exchange-every': { type: 'string' },
    output: { type: 'string' },
    asc: { type: 'string' },
    npy: { type: 'string' },
    frames: { type: 'string' },
    'frames-dir': { type: 'string' },
    png: { type: 'string' },
    gif: { type: 'string' },
    force: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(values) {
    if (!values.dem || !values.source) throw new UsageError('landslide simulate needs --dem and --source')
    const every = intOption(values.frames, 'frames', 1, 1_000_000)
    const framesTo = values['frames-dir'] !== undefined || values.gif !== undefined
    if (every !== undefined && !framesTo) throw new UsageError('--frames needs --frames-dir, --gif or both')
    if (every === undefined && framesTo) throw new UsageError(`--${values['frames-dir'] !== undefined ? 'frames-dir' : 'gif'} needs --frames K`)
    const summary = await simulate({
      header: values.header,
      dem: values.dem,
      source: values.source,
      steps: intOption(values.steps, 'steps', 0, 1_000_000) ?? 4000,
      backend: choice(values.backend, 'backend', LANDSLIDE_BACKENDS, 'active'),
      variant: choice(values.variant, 'variant', GPU_VARIANTS, 'fused'),
      precision: choice(values.precision, 'precision', LANDSLIDE_PRECISIONS, 'f32'),
      ranks: intOption(values.ranks, 'ranks', 1, 256) ?? availableParallelism(),
      stepsPerSubmit: intOption(values['steps-per-submit'], 'steps-per-submit', 1, 100_000),
      gpuBands: intOption(values['gpu-bands'], 'gpu-bands', 1, 64),
      exchangeEvery: intOption(values['exchange-every'], 'exchange-every', 1, 100_000),
      frames: every === undefined ? undefined : { every, dir: values['frames-dir'], gif: values.gif },
      png: values.png,
      output: values.output,
      asc: values.asc,
      npy: values.npy,
      force: !!values.force,
    })
    if (values.json) writeJson(summary)
    else
      process.stdout.write(
        `${summary.backend} (${summary.precision}): ${summary.steps} steps on ${summary.rows} × ${summary.cols} cells in ${summary.ms.toFixed(0)} ms\n` +
          `md5 ${summary.md5}\nmass Σh ${summary.mass_start.toPrecision(10)} → ${summary.mass_end.toPrecision(10)}\n` +
          summary.written.map((p) => `wrote ${p}\n`).join(''),
      )
    return 0
  },
}
