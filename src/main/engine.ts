// The engine side of the workload contract: what a workload's engine (src/main/workloads/<id>)
// gives the backend, and what the backend gives it while it runs. The backend, the CLI and
// `serve` work with any engine through this interface and never name a workload.
import { ApiError, type ApiErrorShape } from '../shared/errors'
import type { JobProgress } from '../shared/jobs'
import type { InputGenerator, ResultEnvelope, Timing } from '../shared/workloads/envelope'
import type { ParamsOf, ResultsOf, WorkloadId, WorkloadOf } from '../shared/workloads'
import type { Gpu } from './gpu/runtime'
import type { Command } from './terminal/command'
import type { RankPlacement } from './ranks/placement'
import type { FileHandle } from 'node:fs/promises'
import type { FileData } from './io/atomic-write'
import type { GridComparison } from '../shared/grid-difference'

/** What a running job may use. */
export interface JobContext {
  signal: AbortSignal
  /** Throttled by the backend; `fraction` runs 0…1 over the whole job. */
  progress(p: JobProgress): void
  /** The readable real path of a requested input file (recorded in the envelope), or an error naming it. */
  input(path: string): Promise<string>
  /** The shared GPU; using it puts the adapter into the envelope. */
  gpu(): Promise<Gpu>
  /**
   * This job runs as one of several ranks (processes started together, e.g. by `srun`), which talk
   * through src/main/ranks; absent in an ordinary run. An engine that does not split its work
   * across ranks ignores it.
   */
  ranks?: RankPlacement
  /**
   * Keeps a file of this run (`bytes` long, written from `data`) beside its history entry, for
   * downloads and zooms after the job (backend/kept-files.ts); resolves to its path, or null when it
   * is larger than the bound on kept files. Absent where runs are not kept (the CLI, views of a run).
   */
  keep?(name: string, bytes: number, data: FileData): Promise<string | null>
}

/** A file an engine makes on request: whole, or in pieces (of a file too large to hold, e.g. a 2 GiB matrix). */
/**
 * A file made whole, or in pieces as it is sent. A piece is valid until the next is asked for (its
 * buffer may be written into again): consumers write or copy each piece before asking for the next.
 */
export type MadeFile = { bytes: Uint8Array; mime: string } | { pieces: AsyncIterable<Uint8Array>; mime: string; /** When known ahead. */ size?: number }

/** A kept file of the run asked about, opened for reading (the caller of `make` closes nothing: the pieces do). */
export type KeptFileOpener = (name: string) => Promise<{ file: FileHandle; size: number }>

/** A run of the history as an engine compares it: its results, whether it is partial, and its kept files (null: it kept none). */
export interface HistoryRun<R> {
  id: string
  results: R
  partial: boolean
  kept: KeptFileOpener | null
}

export interface EngineOutcome<R> {
  results: R
  /** Milliseconds per backend or variant, of repeated runs. */
  timings: Record<string, Timing>
  /** Cancelled midway: `results` hold what had finished. */
  partial?: boolean
  /** With `partial`: the runs that had not finished, as the timings would name them. */
  missing?: string[]
}

/** How the CLI presents a workload beyond what its definition declares. */
export interface EngineCli<R> {
  /** The results for people, on stdout (without --json); the envelope carries the timings. */
  describe(results: R, envelope: ResultEnvelope<R>): string
  /** What went wrong in a run that still finished (e.g. files that could not be read): the CLI prints them and exits 1. */
  failures?(results: R): string[]
  /** Commands that run this workload with some parameters fixed, e.g. `bench device` = `device --measure`. */
  presets?: { name: string; summary: string; params: Record<string, unknown> }[]
  /**
   * Parameters that flags given imply unless given too, e.g. the shortest paths' `--checkpoint-every`
   * computes once (`--repeat 1`): `given` holds the flags given, as parameters.
   */
  implied?(given: Record<string, unknown>): Record<string, unknown>
  /** More commands of this workload, e.g. `generate acc` or `bench stats`. */
  commands?: Command[]
  /** Files `--out` writes beside the tables and charts, e.g. an animation; named `<name>.<ext>` in the set. */
  outputFiles?(results: R): Promise<{ name: string; data: Uint8Array | string }[]>
  /**
   * Flags of the workload's command that each name a file to write from the finished run (e.g.
   * the landslide's `--output FILE`): `check` refuses a target before any work, `write` writes the
   * ones given.
   */
  fileFlags?: {
    flags: { flag: string; help: string }[]
    check(paths: Record<string, string>, force: boolean): Promise<void>
    write(results: R, paths: Record<string, string>, force: boolean): Promise<void>
  }
}

/** One task of a cluster run over several files: its file and how it ended. */
export interface TaskPart<R> {
  /** The input file, as given. */
  file: string
  /** The task's outcome, when it finished (its exit code may still be 1: see `failures`). */
  outcome?: { results: R; timings: Record<string, Timing> }
  /** Why it did not: the run's own error, or what the scheduler did to it (TIMEOUT, CANCELLED, …). */
  error?: ApiErrorShape
}

/**
 * How a cluster run (`--slurm`, src/main/cluster) spreads this workload's files over tasks and
 * brings them back together.
 */
export type EngineCluster<R> =
  /** The files belong to one run (or there are none): one task runs it all. */
  | { split: 'run' }
  /**
   * A task per file (a job array). `merge` makes the tasks' parts, in input order, into what the
   * local run over all the files gives; without it, each file is a run of its own (the workload
   * reads one file per run) and keeps its own result set.
   */
  | { split: 'file'; merge?(parts: TaskPart<R>[]): { results: R; timings: Record<string, Timing> } }

export interface WorkloadEngine<Id extends WorkloadId = WorkloadId> {
  definition: WorkloadOf<Id>
  /** 'gpu' jobs are serialized: one device, one job at a time. */
  lane: 'gpu' | 'cpu'
  run(params: ParamsOf<Id>, ctx: JobContext): Promise<EngineOutcome<ResultsOf<Id>>>
  /** Writes the example's input files (named in the definition) into `dir`, seeded: the same bytes every time. */
  makeExample?(dir: string, signal: AbortSignal): Promise<void>
  /** The `paralab generate` command, parameters and seed that make the example's files: each example input's `generator` in the envelope. */
  exampleGenerator?: InputGenerator
  cli: EngineCli<ResultsOf<Id>>
  /** Absent: `{ split: 'run' }`, one task for the whole run. */
  cluster?: EngineCluster<ResultsOf<Id>>
  /**
   * Whether a run with these parameters checkpoints into its job folder and resumes from there:
   * its cluster job then asks for a warning before its time limit and requeues itself on it.
   */
  checkpoints?(params: ParamsOf<Id>): boolean
  /**
   * Files made on request from a finished run's results, by name (the landslide's final grid as
   * .asc and .npy, the correlation matrix from the run's kept files): the backend hands them to the
   * dashboard. `input` checks and resolves an input path as a job's reads are checked; `kept` opens
   * the run's kept files, given when the file is asked of a run in the history (exportRunFile).
   */
  resultFiles?: {
    /** The names offered, as messages list them. */
    names: readonly string[]
    /** Names of a numbered family (a paths run's distances of graph k) offered besides `names`. */
    matches?: RegExp
    /** `signal`: the asker is gone (a closed connection), so work such as simulating again, or streaming, stops. */
    make(results: ResultsOf<Id>, name: string, input: (path: string) => Promise<string>, signal?: AbortSignal, kept?: KeptFileOpener): Promise<MadeFile>
  }
  /**
   * Two runs' final grids set against each other, B − A, from the files each kept (the API's
   * compareGrids): statistics over the full grids, the difference reduced to a map, or why they
   * cannot be compared. `signal`: the asker is gone.
   */
  compareGrids?(a: HistoryRun<ResultsOf<Id>>, b: HistoryRun<ResultsOf<Id>>, signal?: AbortSignal): Promise<GridComparison>
}

/** An engine of any workload, as the registry holds them. */
export type AnyEngine = { [Id in WorkloadId]: WorkloadEngine<Id> }[WorkloadId]

/** A finished job's envelope, typed by its workload. */
export type EnvelopeOf<Id extends WorkloadId> = ResultEnvelope<ResultsOf<Id>, ParamsOf<Id>>

/**
 * What to run when some of `items` need the GPU: all of them when it is usable; when no adapter
 * exists and others remain, the rest, with the GPU in `skipped` and the reason. A run that needs
 * the GPU for everything fails instead, saying why.
 */
export async function withoutUnusableGpu<T>(
  items: readonly T[],
  needsGpu: (item: T) => boolean,
  ctx: Pick<JobContext, 'gpu'>,
  skipped: { push(s: { backend: 'gpu'; reason: string }): unknown },
): Promise<T[]> {
  if (!items.some(needsGpu) || items.every(needsGpu)) return [...items]
  try {
    await ctx.gpu()
    return [...items]
  } catch (e) {
    const err = ApiError.from(e)
    if (err.code !== 'gpu-unavailable') throw err
    skipped.push({ backend: 'gpu', reason: err.message })
    return items.filter((item) => !needsGpu(item))
  }
}
