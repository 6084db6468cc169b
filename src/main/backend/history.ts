// The run history: every job a dashboard backend finishes is kept as its envelope, one JSON file per
// run in a per-user data folder (PARALAB_HISTORY overrides it), so runs can be reopened and compared.
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readdir, readFile, unlink } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, join } from 'node:path'
import { RUN_ID_PATTERN, type RunSummary } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { writeFileAtomic } from '../io/atomic-write'

/** Runs kept; saving one more deletes the oldest. */
export const HISTORY_LIMIT = 200

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

export class RunHistory {
  /** Ids saved by this process: the dashboard's "this session". */
  private readonly saved = new Set<string>()
  /** A run's file never changes once written, so its summary is read once. */
  private readonly summaries = new Map<string, Omit<RunSummary, 'thisSession'> | null>()

  constructor(
    readonly dir: string,
    private readonly limit = HISTORY_LIMIT,
  ) {}

  /** Writes the envelope whole (temporary file, then rename) and drops the oldest runs beyond the limit. */
  async save(envelope: ResultEnvelope): Promise<string> {
    // The id sorts by start time, so listing needs no file's content or modification time.
    const stamp = new Date(envelope.createdAt).toISOString().replace(/[-:.]/g, '')
    const slug = envelope.workload.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 40)
    const id = `${stamp}-${slug}-${randomBytes(4).toString('hex')}`
    await mkdir(this.dir, { recursive: true })
    await writeFileAtomic(this.file(id), JSON.stringify(envelope))
    this.saved.add(id)
    for (const old of (await this.ids()).slice(this.limit)) {
      this.summaries.delete(old)
      await unlink(this.file(old)).catch(() => {})
    }
    return id
  }

  /** Newest first; files that are not runs (damaged, foreign) are left out. */
  async list(): Promise<RunSummary[]> {
    const ids = await this.ids()
    const summaries = await Promise.all(ids.map((id) => this.summary(id)))
    return summaries.flatMap((s) => (s ? [{ ...s, thisSession: this.saved.has(s.id) }] : []))
  }

  /** The run's envelope. `id` comes from a request: only the id shape, only a plain file in the folder. */
  async open(id: string): Promise<ResultEnvelope> {
    const missing = new ApiError('invalid-argument', `no run ${JSON.stringify(id).slice(0, 100)} in the history`)
    if (!RUN_ID_PATTERN.test(id)) throw missing
    const path = this.file(id)
    // A link or a device under a run's name is not a run.
    const text = (await lstat(path).catch(() => null))?.isFile() ? await readFile(path, 'utf8').catch(() => null) : null
    if (text === null) throw missing
    const envelope = parseEnvelope(text)
    if (!envelope) throw new ApiError('io', `run ${id} in ${this.dir} is damaged: not a result envelope`)
    return envelope
  }

  private file(id: string): string {
    return join(this.dir, `${id}.json`)
  }

  private async ids(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[])
    return names
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -'.json'.length))
      .filter((id) => RUN_ID_PATTERN.test(id))
      .sort()
      .reverse()
  }

  private async summary(id: string): Promise<Omit<RunSummary, 'thisSession'> | null> {
    if (!this.summaries.has(id)) {
      const envelope = await this.open(id).catch(() => null)
      this.summaries.set(id, envelope && { id, workload: envelope.workload, createdAt: envelope.createdAt, summary: summaryOf(envelope), partial: envelope.partial === true })
    }
    return this.summaries.get(id) ?? null
  }
}

/** "acc.csv · serial, simd": the input files (the first and a count when many) and the timed backends. */
export function summaryOf(envelope: ResultEnvelope): string {
  const files = envelope.input.files.map((f) => basename(f.path))
  const shown = files.length > 2 ? `${files[0]} + ${files.length - 1} more` : files.join(', ')
  return [shown, Object.keys(envelope.timings).join(', ')].filter(Boolean).join(' · ')
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
