// The landslide bench (`paralab bench landslide`): every backend and GPU kernel on one grid, timed
// and checked against the f64 reference; loaded when the bench runs.
import { describePlacement, type GpuPlacement } from '../../../shared/gpu-placement'
import { mkdtemp, rm } from 'node:fs/promises'
import { cpus, tmpdir, totalmem, availableParallelism } from 'node:os'
import { join } from 'node:path'
import { adapterName } from '../../../shared/device'
import { landslideWorkload } from '../../../shared/workloads/landslide'
import {
  type GpuVariant,
  type LandslideBackend,
  type LandslidePrecision,
  type LandslideResult,
  type RunArithmetic,
} from '../../../shared/workloads/landslide/types'
import { getGpu, gpuInfo } from '../../gpu/on-demand'
import { writeExample } from './example'
import { readLandslideInput } from './inputs'
import { runLandslideJob, type GivenToJob } from './run-landslide'
import { tiledReference, tileInput, type Tiling } from './tiled-grid'
import type { CBaselineResult } from './c-baseline'

export interface LandslideBenchResult {
  machine: { cpu: string; cores: number; memory_GB: number; gpu: string }
  input: { files: string[]; tile?: string; rows: number; cols: number; walls: number }
  steps: number
  repeat: number
  /** The --precision asked for: the gpu backend's arithmetic (CPU backends run f64). */
  precision: LandslidePrecision
  reference_md5: string
  runs: Record<
    string,
    {
      precision: RunArithmetic
      median_ms: number
      min_ms: number
      max_ms: number
      ratio_vs_serial?: number
      md5?: string
      md5_matches_reference?: boolean
      max_abs_dh?: number
      cells_over_1mm?: number
      mass_error?: number
      /** GPU in bands: the steps between halo exchanges; where each band was to compute and was seen computing. */
      exchange_every?: number
    } & Partial<GpuPlacement>
  >
  notes: string[]
}

export async function benchLandslide(opts: {
  files?: string[]
  steps: number
  backends: LandslideBackend[]
  variants: GpuVariant[]
  ranks?: number
  /** Row bands of the gpu backend (a process each: band-processes.ts) and steps between their exchanges. */
  gpuBands?: number
  exchangeEvery?: number
  repeat: number
  /** Untimed GPU work before each GPU kernel's runs (ms; default none). */
  warmup?: number
  precision: LandslidePrecision
  /** Copies of the grids down and across, in one grid. */
  tile?: Tiling
  log: (line: string) => void
}): Promise<LandslideBenchResult> {
  const notes: string[] = []
  const gpu = await gpuInfo()
  let backends = opts.backends
  if (backends.includes('gpu') && !gpu.available) {
    notes.push(`gpu skipped: ${gpu.reason}`)
    backends = backends.filter((b) => b !== 'gpu')
  }
  let temp: string | undefined
  let files = opts.files
  if (!files) {
    temp = await mkdtemp(join(tmpdir(), 'paralab-bench-landslide-'))
    files = landslideWorkload.example.files.map((f) => join(temp!, f))
    await writeExample(temp, landslideWorkload.example.files)
    notes.push('input: the example\'s synthetic slope (give --header/--dem/--source for the Tessina grids)')
  }
  let last = ''
  let result: LandslideResult
  try {
    const given = opts.tile ? await tiled(files, opts.tile, opts.steps, backends, notes, opts.log) : {}
    const outcome = await runLandslideJob(
      {
        grids: files,
        steps: opts.steps,
        backends,
        variants: opts.variants,
        precision: opts.precision,
        ranks: opts.ranks,
        gpuBands: opts.gpuBands,
        exchangeEvery: opts.exchangeEvery,
        frames: Math.max(1, opts.steps),
        repeat: opts.repeat,
        warmup: opts.warmup,
      },
      {
        signal: new AbortController().signal,
        progress: (p) => {
          if (p.phase !== last) opts.log(p.phase)
          last = p.phase
        },
        input: async (path) => path,
        gpu: getGpu,
      },
      given,
    )
    result = outcome.results
  } finally {
    if (temp) await rm(temp, { recursive: true, force: true })
  }
  const serial = result.runs.serial?.ms
  const runs: LandslideBenchResult['runs'] = {}
  for (const [key, run] of Object.entries(result.runs))
    runs[key] = {
      precision: run.precision,
      median_ms: run.ms,
      min_ms: run.ms_min,
      max_ms: run.ms_max,
      ...(serial !== undefined && { ratio_vs_serial: run.ms / serial }),
      ...(run.md5 !== undefined && { md5: run.md5, md5_matches_reference: run.md5 === result.reference.md5 }),
      ...(run.deviation && { max_abs_dh: run.deviation.max_abs, cells_over_1mm: run.deviation.cells_over_1mm, mass_error: run.deviation.mass_error }),
      ...(run.gpus_requested && { exchange_every: run.exchange_every, gpus_requested: run.gpus_requested, gpus_observed: run.gpus_observed, gpus_observed_by: run.gpus_observed_by, ...(run.gpus_shared && { gpus_shared: run.gpus_shared }) }),
    }
  for (const [key, run] of Object.entries(result.runs)) if (run.gpus_note) notes.push(`${key}: ${run.gpus_note}`)
  for (const s of result.skipped) notes.push(`${s.backend} skipped: ${s.reason}`)
  return {
    machine: {
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: availableParallelism(),
      memory_GB: Math.round(totalmem() / 2 ** 30),
      gpu: gpu.available ? adapterName(gpu.adapter!) : `none (${gpu.reason})`,
    },
    input: { files: opts.files ?? ['(example)'], ...(opts.tile && { tile: `${opts.tile.rows}x${opts.tile.cols}` }), rows: result.grid.rows, cols: result.grid.cols, walls: result.grid.walls },
    steps: opts.steps,
    repeat: opts.repeat,
    precision: opts.precision,
    reference_md5: result.reference.md5,
    runs,
    notes,
  }
}

/**
 * The grids tiled, and, when only the GPU runs, the f64 reference from the original when its
 * copies are independent (else the job runs `active` on the tiled grid, as for any GPU-only request).
 */
async function tiled(files: string[], tile: Tiling, steps: number, backends: LandslideBackend[], notes: string[], log: (line: string) => void): Promise<GivenToJob> {
  log('tiling the grids')
  const original = await readLandslideInput(files, files)
  const input = tileInput(original, tile)
  notes.push(`input: ${original.rows} × ${original.cols} tiled ${tile.rows} × ${tile.cols} (walls kept; each copy's border ring now interior cells)`)
  if (backends.some((b) => b !== 'gpu')) return { input, tile }
  log('reference: active on the original grid, tiled')
  const ref = await tiledReference(original, tile, steps)
  if ('grid' in ref) {
    notes.push('reference: the original\'s active run tiled (no debris came beside its border in any step, so the copies never touch)')
    return { input, tile, reference: ref.grid }
  }
  notes.push(`reference: active on the tiled grid (${ref.touching}, so the copies may touch)`)
  return { input, tile }
}

/** `bench landslide --baseline c`: the study's program against `serial` on the bench's grid (c-baseline.ts). */
export async function benchC(opts: { files?: string[]; tile?: Tiling; steps: number; repeat: number; log: (line: string) => void }): Promise<{ input: LandslideBenchResult['input']; steps: number; baseline: CBaselineResult }> {
  const { compareWithC } = await import('./c-baseline')
  let temp: string | undefined
  let files = opts.files
  try {
    if (!files) {
      temp = await mkdtemp(join(tmpdir(), 'paralab-bench-landslide-'))
      files = landslideWorkload.example.files.map((f) => join(temp!, f))
      await writeExample(temp, landslideWorkload.example.files)
    }
    opts.log('loading grids')
    let input = await readLandslideInput(files, files)
    if (opts.tile) input = tileInput(input, opts.tile)
    const baseline = await compareWithC(input, opts.steps, opts.repeat, opts.log)
    return {
      input: { files: opts.files ?? ['(example)'], ...(opts.tile && { tile: `${opts.tile.rows}x${opts.tile.cols}` }), rows: input.rows, cols: input.cols, walls: input.wallCount },
      steps: opts.steps,
      baseline,
    }
  } finally {
    if (temp) await rm(temp, { recursive: true, force: true })
  }
}

export function describe(r: LandslideBenchResult): string {
  const lines = [
    `machine   ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memory_GB} GB; GPU: ${r.machine.gpu}`,
    `input     ${r.input.files.join(', ')}${r.input.tile ? ` tiled ${r.input.tile}` : ''}: ${r.input.rows} × ${r.input.cols} cells, ${r.input.walls} walls`,
    `steps     ${r.steps}, ${r.repeat} runs each (median); reference md5 ${r.reference_md5}`,
    ...Object.entries(r.runs).map(
      ([key, run]) =>
        `  ${key.padEnd(18)} ${run.precision.padEnd(12)} ${run.median_ms.toFixed(run.median_ms < 10 ? 2 : 0).padStart(8)} ms` +
        (run.ratio_vs_serial === undefined ? '' : `  ${run.ratio_vs_serial.toFixed(3)}× serial`) +
        (run.md5 ? `  md5 ${run.md5_matches_reference ? 'same' : `${run.precision === 'f64' ? 'DIFFERS' : 'differs'} ${run.md5}`}` : '') +
        (run.max_abs_dh === undefined ? '' : `  max |Δh| ${run.max_abs_dh.toExponential(2)} m, Δmass ${run.mass_error!.toExponential(2)}`) +
        (run.gpus_requested && run.gpus_observed ? `  exchange every ${run.exchange_every} steps\n    ${describePlacement(run as GpuPlacement).replace('\n', '\n    ')}` : ''),
    ),
  ]
  return lines.concat(r.notes.map((n) => `note      ${n}`)).join('\n') + '\n'
}
