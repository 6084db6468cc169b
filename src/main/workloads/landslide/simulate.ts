// One landslide simulation whose grids and pictures are written out (`paralab landslide simulate`,
// the landslide command's --output FILE): the targets checked before the run, every file written whole or not at all.
import { join } from 'node:path'
import { thicknessGif } from '../../../shared/workloads/landslide/thickness-animation'
import {
  gpuArithmetic,
  type GpuVariant,
  type LandslideBackend,
  type LandslidePrecision,
  type RunArithmetic,
  debrisVolume,
  type GridCrs,
} from '../../../shared/workloads/landslide/types'
import { getGpu } from '../../gpu/on-demand'
import { writeFileAtomic } from '../../io/atomic-write'
import { prjPathBeside } from '../../../shared/prj'
import { checkTarget } from './check-target'
import { snapshot, thicknessMaps, type Snapshot } from './grid-stats'
import { npyPieces, tifPieces } from './grid-writers'
import { hillshadeMap } from './hillshade'
import { readLandslideInput } from './inputs'
import { referenceMd5 } from './reference-format'
import { writeGridFiles } from './write-grid-files'
import { createSimulation } from './run-landslide'
import { type BandsRun, runBandProcesses } from './band-processes'
import { maxGpuBands, notInBands } from './gpu/gpu-bands'
import { ApiError } from '../../../shared/errors'
import type { JobProgress } from '../../../shared/jobs'
import { initialState } from './simulation'
import { tileInput, type Tiling } from './tiled-grid'
import { lastFramePng, nodeRasterize } from './thickness-files'


export interface SimulateOptions {
  header?: string
  dem: string
  source: string
  /** The grids repeated R × C times (tiled-grid.ts). */
  tile?: Tiling
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
  /** Frames every K steps: as .npy (or GeoTIFF, `as: 'tif'`) files into `dir`, and/or drawn into the animation `gif`. */
  frames?: { every: number; dir?: string; as?: 'npy' | 'tif'; gif?: string }
  /** The final thickness over the hillshaded DEM. */
  png?: string
  /** Progress as the run advances (the steps done), and a cancel, seen between slices of steps. */
  progress?: (p: JobProgress) => void
  signal?: AbortSignal
  output?: string
  asc?: string
  npy?: string
  tif?: string
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
  /** Σh in m summed over the cells, and the debris volume in m³ (Σh × cellsize²). */
  mass_start: number
  mass_end: number
  volume_start: number
  volume_end: number
  /** The DEM's CRS as its file states it. */
  crs: GridCrs
  ms: number
  written: string[]
  /** In band processes (--gpu-bands N): the bands, their exchange interval and where each was seen computing. */
  bands?: BandsRun
}

const sum = (a: Float64Array) => a.reduce((s, v) => s + v, 0)

export async function simulate(opts: SimulateOptions): Promise<SimulateSummary> {
  for (const target of [opts.output, opts.asc, opts.asc && prjPathBeside(opts.asc), opts.npy, opts.tif, opts.png, opts.frames?.gif]) if (target) await checkTarget(target, opts.force)
  if (opts.frames?.dir) await checkTarget(opts.frames.dir, opts.force, true)
  const shown = [...(opts.header ? [opts.header] : []), opts.dem, opts.source]
  const read = await readLandslideInput(shown, shown)
  const input = opts.tile ? tileInput(read, opts.tile) : read
  const state = initialState(input)
  const bands = opts.backend === 'gpu' ? Math.min(opts.gpuBands ?? 1, maxGpuBands(input.rows)) : 1
  if (bands > 1) {
    if (opts.frames) throw new ApiError('invalid-argument', `--frames with --gpu-bands ${bands}: the bands run as processes that hand back only the final grid; leave out --frames, or run one band`)
    const refused = notInBands(opts.variant)
    if (refused) throw new ApiError('invalid-argument', refused)
  }
  const sim = bands > 1 ? undefined : await createSimulation({ backend: opts.backend, variant: opts.variant }, state, { steps: opts.steps, stepsPerSubmit: opts.stepsPerSubmit, precision: opts.precision ?? 'f32' }, opts.ranks, { gpu: getGpu })
  const written: string[] = []
  const digits = String(opts.steps).length
  // The debris' box at each frame drawn (every frame for --gif; the first and last for --png alone).
  const drawn: Snapshot[] = []
  const frame = async () => {
    if (!sim) return
    const h = await sim.thickness()
    if (opts.frames?.gif || (opts.png && sim.done === 0)) drawn.push(snapshot(sim.done, h, input.rows, input.cols))
    if (!opts.frames?.dir) return
    const tif = opts.frames.as === 'tif'
    const path = join(opts.frames.dir, `h-${String(sim.done).padStart(digits, '0')}.${tif ? 'tif' : 'npy'}`)
    await writeFileAtomic(path, tif ? tifPieces(h, input) : npyPieces(h, input.rows, input.cols, input.walls), { overwrite: opts.force })
    written.push(path)
  }
  let ms = 0
  let h: Float64Array
  let bandsRun: BandsRun | undefined
  if (!sim) {
    // In band processes (band-processes.ts): the first picture is the initial grid, the last the bands' final one.
    if (opts.png) drawn.push(snapshot(0, input.h, input.rows, input.cols))
    const once = await runBandProcesses({ recipe: { files: shown, ...(opts.tile && { tile: opts.tile }) }, bands, steps: opts.steps, variant: opts.variant, precision: opts.precision ?? 'f32', warmup: 0, ...(opts.exchangeEvery !== undefined && { exchangeEvery: opts.exchangeEvery }), rows: input.rows, cols: input.cols, signal: opts.signal })
    ms = once.ms
    h = once.grid
    bandsRun = once.run
  } else try {
    if (opts.frames || opts.png) await frame()
    // Slices of about a hundredth of the run, for progress and a cancel between them (the same steps, the same grid).
    const slice = Math.max(1, Math.ceil(opts.steps / 100))
    const key = opts.backend === 'gpu' ? `gpu/${opts.variant}` : opts.backend
    while (sim.done < opts.steps) {
      const next = opts.frames ? Math.min(opts.steps, sim.done + opts.frames.every) : opts.steps
      while (sim.done < next) {
        const t = performance.now()
        await sim.advance(Math.min(slice, next - sim.done), opts.signal)
        ms += performance.now() - t
        opts.progress?.({
          phase: `simulating ${key} · step ${sim.done} of ${opts.steps}`,
          fraction: sim.done / opts.steps,
          ...(ms > 0 && { throughput: { value: (input.rows * input.cols * sim.done) / ms / 1e3, unit: 'M cell-steps/s' } }),
        })
      }
      if (opts.frames) await frame()
    }
    h = (await sim.thickness()).slice()
  } finally {
    await sim.dispose()
  }
  if (opts.png && drawn.at(-1)?.step !== opts.steps) drawn.push(snapshot(opts.steps, h, input.rows, input.cols))
  // The reference text's md5, from the rows written to --output where there is one.
  const files = await writeGridFiles(h, input, opts, opts.force)
  written.push(...files.written)
  if (drawn.length) {
    // One window and one relief for every frame, as a job's maps have.
    const maps = thicknessMaps(drawn, input.rows, input.cols)
    const frames = {
      steps: opts.steps,
      grid: { rows: input.rows, cols: input.cols, cellsize: input.header.cellsize, xllcorner: input.header.xllcorner, yllcorner: input.header.yllcorner, ...(input.crs && { crs: input.crs }) },
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
    md5: files.md5 ?? referenceMd5(h, input.rows, input.cols),
    mass_start: sum(input.h),
    mass_end: sum(h),
    volume_start: debrisVolume(sum(input.h), input.header.cellsize),
    volume_end: debrisVolume(sum(h), input.header.cellsize),
    crs: input.crs ?? { epsg: null, name: 'unknown' },
    ms,
    written,
    ...(bandsRun && { bands: bandsRun }),
  }
}
