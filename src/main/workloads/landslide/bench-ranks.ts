// `paralab bench landslide --ranks 1,2,4`: the landslide in ranks (processes, each a band of rows
// exchanging halos over TCP; gpu: one GPU each) on each count of ranks, `repeat` times: the median
// time of the steps (every rank starts its clock together; rank 0's), the parallel efficiency
// against one rank (T1 / (R · T_R)), each rank's time spent in exchanges, and each final grid's md5,
// which must be the same whatever R.
//
// The ranks are this bench's own processes, started here as srun would start them (launchRanks),
// each building its grid (tiled in memory with --tile) and running the job's ranks code; with
// --slurm or --executor local the bench instead runs `paralab landslide … --ntasks R` as a cluster
// job for each run and reads its envelope (the grids are then files: no --tile).
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { median } from '../../../shared/median'
import { landslideWorkload, type LandslideParams } from '../../../shared/workloads/landslide'
import { runKey, type RankPhases, type GpuVariant, type LandslidePrecision, type LandslideResult } from '../../../shared/workloads/landslide/types'
import { validateParams } from '../../../shared/workloads/schema'
import { getGpu } from '../../gpu/runtime'
import type { GpuPlacement } from '../../../shared/gpu-placement'
import { tetherToLauncher } from '../../ranks/launch'
import { placementFromEnv } from '../../ranks/placement'
import { rankTaskArgs, runLocalRanks } from './local-ranks'
import { readLandslideInput } from './inputs'
import type { GivenToJob } from './run-landslide'
import { overlapsExchanges, pipelinesBlocks } from './rank-plan'
import { runLandslideRanks } from './run-ranks'
import { tiledReference, tileInput, type Tiling } from './tiled-grid'
import { maxOf, minOf } from '../../../shared/extent'

export type RankBackend = 'serial' | 'active' | 'gpu'

export interface RanksBenchOptions {
  files: string[]
  tile?: Tiling
  steps: number
  backend: RankBackend
  variant: GpuVariant
  precision: LandslidePrecision
  counts: number[]
  repeat: number
  exchangeEvery?: number
  warmup: number
  /** Seconds a rank may send nothing before the others name it (--rank-timeout); default the ranks' own. */
  rankTimeout?: number
  /** Rank task only: see RankTask. */
  gridOut?: string
  /** Run each count as a cluster job (`paralab landslide … --ntasks R`) instead of the bench's own ranks. */
  cluster?: { executor: 'slurm' | 'local'; out: string }
  log: (line: string) => void
}

export interface RanksBenchResult {
  machine: { cpu: string; cores: number; memory_GB: number }
  input: { files: string[]; tile?: string; rows: number; cols: number }
  steps: number
  repeat: number
  run: string
  precision: string
  launcher: string
  /** Whether the ranks overlapped their exchanges with their steps (run-ranks.ts overlapsExchanges). */
  overlap: boolean
  counts: ({
    ranks: number
    exchange_every?: number
    median_ms: number
    min_ms: number
    max_ms: number
    /** T(1 rank) / (R × T(R ranks)), medians. */
    efficiency?: number
    /** Per run, the most any rank spent in exchanges; its median. */
    exchange_ms_max: number
    /** Per run, the ranks' mean exchange time; its median. */
    exchange_ms_mean: number
    md5: string
    md5_same_as_1_rank?: boolean
    /** The f64 reference's md5 (f64 and double-float runs must print as it does). */
    md5_matches_reference: boolean
    max_abs_dh?: number
    /** The median run's ranks: each one's time, exchange time and where its time went (run-ranks.ts RankPhases). */
    per_rank?: { rank: number; ms?: number; exchange_ms: number; phases?: RankPhases; halos?: string }[]
    /** Whether gpu ranks queued each block without waiting for the last (run-ranks.ts pipelinesBlocks). */
    pipelined?: boolean
  } & Partial<GpuPlacement>)[]
  notes: string[]
}

/** The job's parameters for these options (as `paralab landslide` would take them). */
function paramsOf(o: Pick<RanksBenchOptions, 'files' | 'steps' | 'backend' | 'variant' | 'precision' | 'exchangeEvery' | 'warmup' | 'rankTimeout'>): LandslideParams {
  return validateParams('landslide', landslideWorkload.params, {
    grids: o.files,
    steps: o.steps,
    backends: [o.backend],
    variants: [o.variant],
    precision: o.precision,
    // Samples at the first and last steps only: gathering the grid is no part of what is timed.
    frames: Math.max(1, o.steps),
    ...(o.exchangeEvery !== undefined && { exchangeEvery: o.exchangeEvery }),
    ...(o.rankTimeout !== undefined && { rankTimeout: o.rankTimeout }),
    ...(o.backend === 'gpu' && o.warmup > 0 && { warmup: o.warmup }),
  }) as LandslideParams
}

/**
 * One rank of the bench (a process started by benchRanks): builds the grid, runs its band with the
 * others, and on rank 0 prints the job's results as JSON on stdout.
 */
export async function runBenchRank(o: Omit<RanksBenchOptions, 'counts' | 'repeat' | 'cluster' | 'log'>): Promise<void> {
  const placement = placementFromEnv(process.env)
  if (!placement) throw new ApiError('invalid-argument', '--rank-task is how bench landslide --ranks starts its ranks: it needs SLURM_PROCID, SLURM_NTASKS and PARALAB_JOB_DIR')
  tetherToLauncher()
  const original = await readLandslideInput(o.files, o.files)
  const given: GivenToJob = { input: o.tile ? tileInput(original, o.tile) : original }
  // Rank 0 of a gpu run compares with the f64 grid: the original's active run, tiled, when its copies never touch.
  if (o.backend === 'gpu' && placement.rank === 0 && o.gridOut === undefined) {
    const ref = await tiledReference(original, o.tile ?? { rows: 1, cols: 1 }, o.steps)
    if ('grid' in ref) given.reference = ref.grid
  }
  const outcome = await runLandslideRanks(
    paramsOf(o),
    { signal: new AbortController().signal, progress: () => {}, input: async (p) => p, gpu: getGpu, ranks: placement },
    given,
    o.gridOut === undefined ? {} : { withoutReference: true, finalGrid: (grid) => writeFile(o.gridOut!, grid, { flag: 'wx', mode: 0o600 }) },
  )
  if (placement.rank === 0) process.stdout.write(JSON.stringify(outcome.results) + '\n')
}

/** A child process's exit and output. */
function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t))
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t))
    child.on('error', (e) => resolve({ code: null, stdout, stderr: stderr + e.message }))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const tail = (text: string) => text.trim().split('\n').slice(-3).join(' / ')

/** One run on `ranks` ranks: rank 0's results. */
async function runOnce(o: RanksBenchOptions, ranks: number, index: number, scratch: string): Promise<LandslideResult> {
  const cli = process.argv[1]
  if (o.cluster) {
    // The bench's own folder is made for it; each run's job folder inside it, by the run.
    await mkdir(o.cluster.out, { recursive: true })
    const out = join(o.cluster.out, `ranks-${ranks}-run-${index}`)
    const args = [
      cli, 'landslide', ...o.files,
      '--steps', String(o.steps), '--backend', o.backend, '--frames', String(Math.max(1, o.steps)),
      ...(o.backend === 'gpu' ? ['--variant', o.variant, '--precision', o.precision, ...(o.warmup > 0 ? ['--warmup', String(o.warmup)] : []), '--gpus-per-task', '1'] : []),
      ...(o.exchangeEvery !== undefined ? ['--exchange-every', String(o.exchangeEvery)] : []),
      ...(o.rankTimeout !== undefined ? ['--rank-timeout', String(o.rankTimeout)] : []),
      '--ntasks', String(ranks),
      ...(o.cluster.executor === 'slurm' ? ['--slurm'] : ['--executor', 'local']),
      '--wait', '--json', '--force', '--out', out,
    ]
    const r = await runProcess(process.execPath, args, process.env)
    if (r.code !== 0) throw new ApiError('io', `paralab landslide on ${ranks} ranks (${o.cluster.executor}) exited ${r.code}: ${tail(r.stderr)}`)
    return JSON.parse(r.stdout).results as LandslideResult
  }
  const folder = join(scratch, `ranks-${ranks}-run-${index}`)
  await mkdir(folder, { recursive: true })
  return runLocalRanks({ ranks, args: rankTaskArgs(o), folder, gpu: o.backend === 'gpu', part: 'rank', what: `bench landslide on ${ranks} ranks` })
}

export async function benchRanks(o: RanksBenchOptions): Promise<RanksBenchResult> {
  const key = runKey(o.backend, o.backend === 'gpu' ? o.variant : undefined)
  const notes: string[] = []
  const scratch = await mkdtemp(join(tmpdir(), 'paralab-bench-ranks-'))
  const counts: RanksBenchResult['counts'] = []
  let grid = { rows: 0, cols: 0 }
  let precision = ''
  try {
    for (const ranks of o.counts) {
      const times: number[] = []
      const maxEx: number[] = []
      const meanEx: number[] = []
      let last: LandslideResult | undefined
      const all: LandslideResult[] = []
      const md5s = new Set<string>()
      for (let k = 0; k < o.repeat; k++) {
        o.log(`${key} on ${ranks} rank${ranks === 1 ? '' : 's'}, run ${k + 1} of ${o.repeat}`)
        const r = await runOnce(o, ranks, k, scratch)
        const run = r.runs[key]
        times.push(run.ms)
        const ex = r.ranks?.bands.map((b) => b.exchange_ms) ?? [0]
        maxEx.push(maxOf(ex))
        meanEx.push(ex.reduce((s, v) => s + v, 0) / ex.length)
        md5s.add(run.md5!)
        last = r
        all.push(r)
      }
      const run = last!.runs[key]
      grid = { rows: last!.grid.rows, cols: last!.grid.cols }
      precision = run.precision
      if (md5s.size > 1) notes.push(`${ranks} ranks: the runs' md5s differ (${[...md5s].join(', ')})`)
      const one = counts.find((c) => c.ranks === 1)
      const med = median(times)
      const middle = all[times.indexOf(times.slice().sort((x, y) => x - y)[Math.floor((times.length - 1) / 2)])]
      counts.push({
        ranks,
        ...(run.exchange_every !== undefined && { exchange_every: run.exchange_every }),
        median_ms: med,
        min_ms: minOf(times),
        max_ms: maxOf(times),
        ...(one && { efficiency: one.median_ms / (ranks * med) }),
        exchange_ms_max: median(maxEx),
        exchange_ms_mean: median(meanEx),
        md5: run.md5!,
        ...(one && { md5_same_as_1_rank: run.md5 === one.md5 }),
        md5_matches_reference: run.md5 === last!.reference.md5,
        ...(run.gpus_requested && { gpus_requested: run.gpus_requested, gpus_observed: run.gpus_observed, gpus_observed_by: run.gpus_observed_by, ...(run.gpus_shared && { gpus_shared: run.gpus_shared }) }),
        ...(run.deviation && { max_abs_dh: run.deviation.max_abs }),
        ...(middle?.ranks && { per_rank: middle.ranks.bands.map((b) => ({ rank: b.rank, ...(b.ms !== undefined && { ms: b.ms }), exchange_ms: b.exchange_ms, ...(b.phases && { phases: b.phases }), ...(b.halos && { halos: b.halos }) })) }),
        ...(o.backend === 'gpu' && ranks > 1 && overlapsExchanges(o.backend) && { pipelined: pipelinesBlocks() }),
      })
      if (run.gpus_note) notes.push(`${ranks} ranks: ${run.gpus_note}`)
      if (run.gpus_shared) notes.push(`WARNING ${ranks} ranks: ${run.gpus_shared} — computed on one GPU together`)
    }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
  if (!o.counts.includes(1)) notes.push('no 1-rank run: no efficiency')
  if (counts.some((c) => c.pipelined))
    notes.push('blocks pipelined: a rank waits for its own edge rows behind its GPU\'s steps, so its exchange time includes waiting for the GPU (each rank\'s phases say where)')
  return {
    machine: { cpu: cpus()[0]?.model.trim() ?? 'unknown', cores: availableParallelism(), memory_GB: Math.round(totalmem() / 2 ** 30) },
    input: { files: o.files, ...(o.tile && { tile: `${o.tile.rows}x${o.tile.cols}` }), ...grid },
    steps: o.steps,
    repeat: o.repeat,
    run: key,
    precision,
    launcher: o.cluster ? (o.cluster.executor === 'slurm' ? 'paralab landslide --slurm --ntasks R' : 'paralab landslide --executor local --ntasks R') : 'the bench\'s own ranks (processes on this machine, SLURM_LOCALID = rank)',
    overlap: overlapsExchanges(o.backend),
    counts,
    notes,
  }
}

export function describeRanks(r: RanksBenchResult): string {
  const lines = [
    `machine   ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memory_GB} GB`,
    `input     ${r.input.files.join(', ')}${r.input.tile ? ` tiled ${r.input.tile}` : ''}: ${r.input.rows} × ${r.input.cols} cells`,
    `run       ${r.run} (${r.precision}), ${r.steps} steps, ${r.repeat} runs each (median); ${r.launcher}; exchanges ${r.overlap ? 'overlapped with the steps' : 'between the steps'}`,
    '  ranks  every       median ms   efficiency   exchange ms (max / mean rank)   md5',
    ...r.counts.map(
      (c) =>
        `  ${String(c.ranks).padStart(5)}  ${String(c.exchange_every ?? '-').padStart(5)}  ${c.median_ms.toFixed(0).padStart(14)}   ${c.efficiency === undefined ? '         -' : `${(c.efficiency * 100).toFixed(1).padStart(9)}%`}   ${c.exchange_ms_max.toFixed(1).padStart(12)} / ${c.exchange_ms_mean.toFixed(1).padStart(8)}        ${c.md5}${c.md5_matches_reference ? ' (the reference\'s)' : ''}${c.md5_same_as_1_rank === false ? ' DIFFERS from 1 rank' : ''}${c.max_abs_dh === undefined ? '' : `  max |Δh| ${c.max_abs_dh.toExponential(2)} m`}${c.gpus_observed ? `  GPUs requested ${c.gpus_requested!.join(', ')}, observed ${c.gpus_observed.join(', ')}` : ''}`,
    ),
  ]
  for (const c of r.counts)
    for (const b of c.per_rank ?? [])
      if (b.phases && b.phases.blocks > 0) {
        const f = (v: number) => v.toFixed(0)
        const ph = b.phases
        lines.push(`    ${c.ranks} ranks${c.exchange_every ? `, every ${c.exchange_every}` : ''}${c.pipelined ? ', pipelined' : ''}, rank ${b.rank}: ${b.ms === undefined ? '' : `${f(b.ms)} ms; `}${ph.blocks} blocks; queue ${f(ph.queue_ms)}, readback ${f(ph.readback_ms)} (overlapped), send ${f(ph.send_ms)}, wait own edges ${f(ph.edges_wait_ms)}, wait neighbours ${f(ph.wait_ms)}, upload ${f(ph.upload_ms)}, wait device ${f(ph.compute_wait_ms)} ms${b.halos ? `; halos through ${b.halos}` : ''}`)
      }
  return lines.concat(r.notes.map((n) => `note      ${n}`)).join('\n') + '\n'
}
