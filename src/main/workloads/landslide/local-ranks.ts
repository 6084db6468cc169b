// Landslide ranks as processes of this machine: `paralab bench landslide --rank-task …` started R
// times as srun would (launchRanks), each gpu rank fenced onto a GPU of its own where a fence can
// show it only that one (src/main/gpu/fence.ts), and watched from here with nvidia-smi, so that
// the GPU each rank computed on is the one the driver saw it use, never the one it was meant to
// get. `bench landslide --ranks` and `--gpu-bands N` (a band per process) both run through here.
//
// The ranks are tethered: each reads its stdin, a pipe from this process, and exits when it
// closes, so no rank outlives a launcher that was killed; a cancelled launch ends its ranks
// (SIGTERM, then SIGKILL) before it returns.
import { ApiError } from '../../../shared/errors'
import { NOT_OBSERVED, placementOf } from '../../../shared/gpu-placement'
import type { GpuVariant, LandslidePrecision, LandslideResult } from '../../../shared/workloads/landslide/types'
import type { Tiling } from './tiled-grid'
import { rankFences } from '../../gpu/fence'
import { sampleGpus } from '../../gpu/observe'
import { launchRanks } from '../../ranks/launch'

/** How long ranks asked to stop (SIGTERM) have before they are killed. */
const STOP_GRACE_MS = 3000

/** What each rank runs: the flags of `paralab bench landslide --rank-task`. */
export interface RankTask {
  files: string[]
  tile?: Tiling
  steps: number
  backend: 'serial' | 'active' | 'gpu'
  variant: GpuVariant
  precision: LandslidePrecision
  warmup: number
  exchangeEvery?: number
  rankTimeout?: number
  /**
   * Rank 0 writes the final grid (f64, row by row) to this new file and skips the f64 reference
   * (the process that started the ranks has its own): `--gpu-bands N`.
   */
  gridOut?: string
}

/** The flags that make a rank run the task. */
export function rankTaskArgs(o: RankTask): string[] {
  const [header, dem, source] = o.files.length === 3 ? o.files : [undefined, ...o.files]
  return [
    ...(header ? ['--header', header] : []),
    '--dem', dem!, '--source', source!,
    ...(o.tile ? ['--tile', `${o.tile.rows}x${o.tile.cols}`] : []),
    '--steps', String(o.steps),
    '--backend', o.backend,
    '--variant', o.variant,
    '--precision', o.precision,
    '--warmup', String(o.warmup),
    ...(o.exchangeEvery !== undefined ? ['--exchange-every', String(o.exchangeEvery)] : []),
    ...(o.rankTimeout !== undefined ? ['--rank-timeout', String(o.rankTimeout)] : []),
    ...(o.gridOut !== undefined ? ['--grid-out', o.gridOut] : []),
  ]
}

const tail = (text: string) => text.trim().split('\n').slice(-3).join(' / ')

export interface LocalRanksRun {
  ranks: number
  /** The rank task's flags (bench-ranks.ts rankTaskArgs). */
  args: string[]
  /** The job folder (rank 0 publishes its address there). */
  folder: string
  gpu: boolean
  /** What the results call each process: 'rank', or 'band' for --gpu-bands. */
  part: 'rank' | 'band'
  /** What the ranks are, for errors: "bench landslide on 4 ranks". */
  what: string
  signal?: AbortSignal
  /** The built CLI the ranks run (default this process's: process.argv[1]). */
  cli?: string
}

/** Rank 0's results, with the GPU of each rank as observed (here, where a rank could not see it). */
export async function runLocalRanks(o: LocalRanksRun): Promise<LandslideResult> {
  const cli = o.cli ?? process.argv[1]
  // A GPU each where a fence can show each rank only its own; else they open the GPU they are given, and say so.
  const fences = o.gpu ? rankFences(o.ranks) : undefined
  o.signal?.throwIfAborted()
  const launched = launchRanks({
    command: process.execPath,
    args: [cli, 'bench', 'landslide', '--rank-task', ...o.args],
    ranks: o.ranks,
    folder: o.folder,
    tether: true,
    ...(fences?.ok && { fences }),
  })
  // Watched from outside the ranks' namespaces too: where each rank's process held its memory.
  const watch = o.gpu ? sampleGpus(launched.processes.map((p) => p.pid ?? -1)) : undefined
  let killer: ReturnType<typeof setTimeout> | undefined
  const stop = () => {
    for (const p of launched.processes) p.kill('SIGTERM')
    killer = setTimeout(() => launched.processes.forEach((p) => p.exitCode === null && p.signalCode === null && p.kill('SIGKILL')), STOP_GRACE_MS)
  }
  o.signal?.addEventListener('abort', stop, { once: true })
  let exits
  try {
    exits = await launched.exited
  } finally {
    o.signal?.removeEventListener('abort', stop)
    clearTimeout(killer)
  }
  const watched = await watch?.stop()
  o.signal?.throwIfAborted()
  const failed = exits.find((e) => e.code !== 0)
  if (failed) throw new ApiError('io', `${o.what}: rank ${failed.rank} exited ${failed.code ?? failed.signal}: ${tail(failed.stderr)}`)
  const result = JSON.parse(exits[0].stdout.trim().split('\n').at(-1)!) as LandslideResult
  const run = Object.values(result.runs)[0]
  if (run?.gpus_requested && run.gpus_observed && watched) {
    // A rank that could not see itself (nvidia-smi inside its namespace, or a software adapter) is taken as the launcher saw it.
    const observed = run.gpus_observed.map((g, k) => (g === NOT_OBSERVED ? watched.gpus[k] : g))
    const by = observed.some((g, k) => g !== run.gpus_observed![k]) ? `${watched.by} (sampled by the launcher)` : run.gpus_observed_by!
    Object.assign(run, placementOf(run.gpus_requested, { gpus: observed, by }, o.part))
  }
  if (run && fences && !fences.ok) run.gpus_note = [run.gpus_note, fences.why].filter(Boolean).join('; ')
  return result
}
