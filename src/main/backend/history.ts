// The run history: every job a dashboard backend finishes is kept as its envelope, one JSON file per
// run in a per-user data folder (PARALAB_HISTORY overrides it), so runs can be reopened and compared.
import { randomBytes } from 'node:crypto'
import { mkdir, realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, join, resolve, sep } from 'node:path'
import { RUN_ID_PATTERN, RUN_LABEL_MAX, type RunSummary } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import { isWorkloadId, workload } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { defaultOf, type ParamSchema, type ParamSpec } from '../../shared/workloads/schema'
import { writeFileAtomic } from '../io/atomic-write'
import { listManaged, managedEntry, readManagedFile, removeManaged } from '../io/managed-folder'

/** Runs kept; saving one more deletes the oldest. */
export const HISTORY_LIMIT = 200
/** Bytes the kept runs take together at most; saving one more deletes the oldest beyond. */
export const HISTORY_MAX_BYTES = 256 * 1024 * 1024
/** A run's envelope larger than this is not kept (nor read back): listing reads runs one at a time, each whole. */
export const MAX_RUN_BYTES = 16 * 1024 * 1024
/** The runs' labels, beside them; read up to a bound that HISTORY_LIMIT labels of RUN_LABEL_MAX characters fit. */
const LABELS_FILE = 'labels.json'
const LABELS_MAX_BYTES = 1024 * 1024

export function defaultHistoryDir(): string {
  if (process.env.PARALAB_HISTORY) return process.env.PARALAB_HISTORY
  const home = homedir()
  const data =
    process.platform === 'win32'
      ? (process.env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'))
      : process.platform === 'darwin'
        ? join(home, 'Library', 'Application Support')
        : (process.env.XDG_DATA_HOME ?? join(home, '.local', 'share'))
  return join(data, 'paralab', 'history')
}

/**
 * Which runs a dashboard lists and opens: those whose inputs all lie in its data folders or among
 * the examples (runs without inputs, such as a device's, belong everywhere).
 */
export interface HistoryScope {
  folders: string[]
  examples: string
}

export class RunHistory {
  /** Ids saved by this process: the dashboard's "this session". */
  private readonly saved = new Set<string>()
  /** A run's file never changes once written, so its summary is read once. */
  private readonly summaries = new Map<string, KeptRun | null>()

  /** `scope` undefined: every run (the desktop app, which may read any file the user picks). */
  constructor(
    readonly dir: string,
    private readonly limit = HISTORY_LIMIT,
    private readonly scope?: HistoryScope,
    private readonly maxBytes = HISTORY_MAX_BYTES,
    /** Told of each run the bounds drop (its kept files go with it). */
    private readonly dropped?: (id: string) => Promise<void>,
  ) {}

  /** A fresh run id: it sorts by start time, so listing needs no file's content or modification time. */
  static newId(workload: string, createdAt: string | Date): string {
    const stamp = new Date(createdAt).toISOString().replace(/[-:.]/g, '')
    const slug = workload.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 40)
    return `${stamp}-${slug}-${randomBytes(4).toString('hex')}`
  }

  /**
   * Writes the envelope whole (temporary file, then rename) and drops the oldest runs beyond the
   * limits of count and bytes. An envelope over MAX_RUN_BYTES is refused.
   */
  async save(envelope: ResultEnvelope, id = RunHistory.newId(envelope.workload, envelope.createdAt)): Promise<string> {
    const text = JSON.stringify(envelope)
    const bytes = Buffer.byteLength(text)
    if (bytes > MAX_RUN_BYTES) throw new ApiError('invalid-input', `the run's envelope takes ${mb(bytes)}; runs of at most ${mb(MAX_RUN_BYTES)} are kept`)
    if (!RUN_ID_PATTERN.test(id)) throw new ApiError('internal', `not a run id: ${JSON.stringify(id)}`)
    await mkdir(this.dir, { recursive: true })
    await writeFileAtomic(this.file(id), text)
    this.saved.add(id)
    let total = 0
    for (const [i, old] of (await this.ids()).entries()) {
      const { stat: s } = await managedEntry(this.dir, [`${old}.json`]).catch(() => ({ stat: null }))
      total += s?.isFile() ? s.size : 0
      if (i < this.limit && total <= this.maxBytes) continue
      this.summaries.delete(old)
      // A link under a run's name is removed itself, another user's file is left: never what it points to.
      await removeManaged(this.dir, [`${old}.json`], { recursive: false })
      await this.dropped?.(old)
    }
    return id
  }

  /** Newest first, in scope; files that are not runs (damaged, foreign) are left out. */
  async list(): Promise<RunSummary[]> {
    const ids = await this.ids()
    const inScope = await this.inScope()
    const labels = await this.labels()
    // One at a time: each run is read whole, and only its summary is kept.
    const summaries: (KeptRun | null)[] = []
    for (const id of ids) summaries.push(await this.summary(id))
    return summaries.flatMap((s) => (s && inScope(s.inputs) ? [{ ...withoutInputs(s), thisSession: this.saved.has(s.id), ...(labels[s.id] && { label: labels[s.id] }) }] : []))
  }

  /**
   * Names a run (an empty label removes its name). The labels are one small file beside the runs
   * (`labels.json`, rewritten whole), since a run's own file never changes; only a run this
   * dashboard can open is labelled, and a label is text the request's check allowed (one line,
   * at most RUN_LABEL_MAX characters), never read as anything but text.
   */
  async label(id: string, label: string): Promise<void> {
    await this.open(id)
    const labels = await this.labels()
    const known = new Set(await this.ids())
    const next = Object.fromEntries(Object.entries(labels).filter(([run]) => run !== id && known.has(run)))
    if (label.trim()) next[id] = label.trim()
    // Rename over the old file: a link put in its place is replaced, never written through.
    await writeFileAtomic(join(this.dir, LABELS_FILE), JSON.stringify(next), { overwrite: true })
  }

  /** The labels by run id; none where the file is missing, damaged or not a plain file. */
  private async labels(): Promise<Record<string, string>> {
    const bytes = await readManagedFile(this.dir, [LABELS_FILE], { maxBytes: LABELS_MAX_BYTES }).catch(() => null)
    if (!bytes) return {}
    try {
      const parsed: unknown = JSON.parse(bytes.toString('utf8'))
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {}
      return Object.fromEntries(Object.entries(parsed).filter(([id, v]) => RUN_ID_PATTERN.test(id) && typeof v === 'string' && [...v].length <= RUN_LABEL_MAX))
    } catch {
      return {}
    }
  }

  /** The run's envelope. `id` comes from a request: only the id shape, only a plain file in the folder, only a run in scope. */
  async open(id: string): Promise<ResultEnvelope> {
    const envelope = await this.read(id)
    // A run on other data is not this dashboard's to show: the same answer as a missing one.
    if (!(await this.inScope())(envelope.input.files.map((f) => f.path))) throw missingRun(id)
    return envelope
  }

  private async read(id: string): Promise<ResultEnvelope> {
    if (!RUN_ID_PATTERN.test(id)) throw missingRun(id)
    // A link, a device or another user's file under a run's name is not a run, nor is a file larger than any run kept.
    const { stat: info } = await managedEntry(this.dir, [`${id}.json`]).catch(() => ({ stat: null }))
    if (info?.isFile() && info.size > MAX_RUN_BYTES) throw new ApiError('io', `run ${id} in ${this.dir} takes ${mb(info.size)}; runs of at most ${mb(MAX_RUN_BYTES)} are read`)
    const text = info?.isFile() ? await readManagedFile(this.dir, [`${id}.json`], { maxBytes: MAX_RUN_BYTES }).then((b) => b.toString('utf8'), () => null) : null
    if (text === null) throw missingRun(id)
    const envelope = parseEnvelope(text)
    if (!envelope) throw new ApiError('io', `run ${id} in ${this.dir} is damaged: not a result envelope`)
    return envelope
  }

  /** Whether a run on these input paths is in scope; the folders' real paths as well as their names. */
  private async inScope(): Promise<(inputs: string[]) => boolean> {
    if (!this.scope) return () => true
    const named = [...this.scope.folders, this.scope.examples].map((f) => resolve(f))
    const folders = [...named, ...(await Promise.all(named.map((f) => realpath(f).catch(() => f))))]
    const under = (path: string) => folders.some((f) => path === f || path.startsWith(f.endsWith(sep) ? f : f + sep))
    return (inputs) => inputs.every(under)
  }

  private file(id: string): string {
    return join(this.dir, `${id}.json`)
  }

  private async ids(): Promise<string[]> {
    const names = await listManaged(this.dir).catch(() => [] as string[])
    return names
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -'.json'.length))
      .filter((id) => RUN_ID_PATTERN.test(id))
      .sort()
      .reverse()
  }

  private async summary(id: string): Promise<KeptRun | null> {
    if (!this.summaries.has(id)) {
      const envelope = await this.read(id).catch(() => null)
      this.summaries.set(
        id,
        envelope && { id, workload: envelope.workload, createdAt: envelope.createdAt, summary: summaryOf(envelope), partial: envelope.partial === true, provenance: provenanceOf(envelope), inputs: envelope.input.files.map((f) => f.path) },
      )
    }
    return this.summaries.get(id) ?? null
  }
}

/** A run's summary as kept between listings, with its input paths for the scope. */
type KeptRun = Omit<RunSummary, 'thisSession'> & { inputs: string[] }

function withoutInputs({ inputs: _inputs, ...summary }: KeptRun): Omit<RunSummary, 'thisSession'> {
  return summary
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`

function missingRun(id: string): ApiError {
  return new ApiError('invalid-argument', `no run ${JSON.stringify(id).slice(0, 100)} in the history`)
}

/**
 * "acc.csv · serial, simd": the input files (the first and a count when many; those asked for when
 * none was read) and the timed backends; a run with neither (an adapter query, say) is described by
 * its parameters that differ from the defaults.
 */
export function summaryOf(envelope: ResultEnvelope): string {
  const read = envelope.input.files.map((f) => f.path)
  const files = (read.length ? read : params(envelope).flatMap(([, spec, v]) => (spec.type === 'files' && Array.isArray(v) ? v.map(String) : []))).map((p) => basename(p))
  const shown = files.length > 2 ? `${files[0]} + ${files.length - 1} more` : files.join(', ')
  const line = [shown, Object.keys(envelope.timings).join(', ')].filter(Boolean).join(' · ')
  if (line) return line
  const changed = params(envelope).flatMap(([, spec, value]) => {
    if (value === undefined || JSON.stringify(value) === JSON.stringify(defaultOf(spec))) return []
    const text = Array.isArray(value) ? value.join(', ') : typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value)
    return [`${spec.label} ${text}${spec.unit ? ` ${spec.unit}` : ''}`]
  })
  return changed.length ? changed.join(' · ') : 'default parameters'
}

/** One line per input: "acc.csv · csv · sha256 3fa2…", with its dataset and generator where it has them. */
export function provenanceOf(envelope: ResultEnvelope): string[] {
  return envelope.input.files.map((f) =>
    [
      basename(String(f.path)),
      typeof f.format === 'string' && f.format,
      typeof f.dataset === 'string' && `dataset ${f.dataset}`,
      typeof f.generator?.name === 'string' && `made by paralab ${f.generator.name} --seed ${String(f.generator.seed)}`,
      typeof f.sha256 === 'string' ? `sha256 ${f.sha256}` : 'no sha256 recorded',
    ]
      .filter(Boolean)
      .join(' · '),
  )
}

/** The run's parameters with their specs, for a workload this build knows. */
function params(envelope: ResultEnvelope): [string, ParamSpec, unknown][] {
  if (!isWorkloadId(envelope.workload)) return []
  const values = (envelope.params ?? {}) as Record<string, unknown>
  return Object.entries(workload(envelope.workload).params as ParamSchema).map(([name, spec]) => [name, spec, values[name]])
}

function parseEnvelope(text: string): ResultEnvelope | null {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return null
  }
  const e = v as Partial<ResultEnvelope> | null
  const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x)
  const ok = isObject(e) && typeof e!.workload === 'string' && typeof e!.createdAt === 'string' && isObject(e!.timings) && isObject(e!.input) && Array.isArray(e!.input!.files)
  return ok ? (e as ResultEnvelope) : null
}
