// Reading back what a task left in its folder (DIR/tasks/<index>/), which anyone who shares the
// folder could have written: every file is opened only if it is a regular file (no FIFO, device or
// symlink), read up to a bound, and checked against what the job record says the task is (its
// workload, its index, its input files) before the merge believes it. A record that fails a check
// makes its task a failed one, with the reason naming the file and the field.
import { lstat, realpath } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { ApiError, type ApiErrorShape } from '../../shared/errors'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { readManagedJson } from '../io/managed-folder'
import { badField, isMissing, isObject, jobPaths, type JobRecord } from './job-folder'
import type { LocalState } from './local-executor'
import type { TaskExit } from './task-folder'

/** A task's envelope: its results, which for some workloads hold maps and series. */
const ENVELOPE_BYTES = 256 * 2 ** 20
/** error.json, exit.json, state.json: a few lines each. */
const SMALL_BYTES = 1 * 2 ** 20

/** What a task's folder holds, each file checked; `problems` says why a file present was not believed. */
export interface TaskRecords {
  envelope?: ResultEnvelope
  error?: ApiErrorShape
  exit?: TaskExit
  state?: LocalState
  problems: string[]
}

/**
 * Reads one record: undefined when absent; a problem when it is there but not a regular file, too
 * large, not JSON, or fails `check`.
 */
async function readChecked<T>(dir: string, parts: string[], maxBytes: number, check: (v: unknown, path: string) => T, problems: string[]): Promise<T | undefined> {
  const path = join(dir, ...parts)
  try {
    // Never through a link at any component, nor a file of another user (io/managed-folder.ts).
    return check(await readManagedJson(dir, parts, { maxBytes }), path)
  } catch (e) {
    if (!(await isMissing(path))) problems.push(ApiError.from(e).message)
    return undefined
  }
}

const isInt = (v: unknown, min: number, max: number): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= max

function checkExit(v: unknown, path: string): TaskExit {
  if (!isObject(v)) throw badField(path, 'the record', 'an object', v)
  if (!isInt(v.exit_code, 0, 255)) throw badField(path, 'exit_code', 'an exit status 0…255', v.exit_code)
  if (typeof v.node !== 'string' || v.node.length > 255) throw badField(path, 'node', 'a node name', v.node)
  if (typeof v.ended !== 'string') throw badField(path, 'ended', 'a time', v.ended)
  return { exit_code: v.exit_code, node: v.node, ended: v.ended }
}

function checkError(v: unknown, path: string): ApiErrorShape {
  if (!isObject(v)) throw badField(path, 'the record', 'an object', v)
  if (typeof v.code !== 'string' || v.code.length > 64) throw badField(path, 'code', 'an error code', v.code)
  if (typeof v.message !== 'string') throw badField(path, 'message', 'a text', v.message)
  return { code: v.code as ApiErrorShape['code'], message: v.message.length > 4096 ? `${v.message.slice(0, 4096)}…` : v.message }
}

function checkState(v: unknown, path: string): LocalState {
  if (!isObject(v)) throw badField(path, 'the record', 'an object', v)
  if (v.state !== 'COMPLETED' && v.state !== 'FAILED' && v.state !== 'CANCELLED') throw badField(path, 'state', 'COMPLETED, FAILED or CANCELLED', v.state)
  if (!isInt(v.exit_code, 0, 255)) throw badField(path, 'exit_code', 'an exit status 0…255', v.exit_code)
  if (!isInt(v.signal, 0, 127)) throw badField(path, 'signal', 'a signal number', v.signal)
  return { state: v.state, exit_code: v.exit_code, signal: v.signal }
}

/** The envelope's shape as every envelope has it; what it says of its task is checked by `belongsTo`. */
function checkEnvelope(v: unknown, path: string): ResultEnvelope {
  if (!isObject(v)) throw badField(path, 'the envelope', 'an object', v)
  if (typeof v.workload !== 'string') throw badField(path, 'workload', 'a workload name', v.workload)
  if (typeof v.paralabVersion !== 'string') throw badField(path, 'paralabVersion', 'a version', v.paralabVersion)
  if (typeof v.createdAt !== 'string') throw badField(path, 'createdAt', 'a time', v.createdAt)
  if (!isObject(v.input) || !Array.isArray(v.input.files)) throw badField(path, 'input.files', 'a list of files', isObject(v.input) ? v.input.files : v.input)
  v.input.files.forEach((f: unknown, i) => {
    if (
      !isObject(f) ||
      typeof f.path !== 'string' ||
      typeof f.bytes !== 'number' ||
      typeof f.modified !== 'string' ||
      (f.format !== undefined && typeof f.format !== 'string') ||
      (f.sha256 !== undefined && !(typeof f.sha256 === 'string' && /^[0-9a-f]{64}$/.test(f.sha256)))
    )
      throw badField(path, `input.files[${i}]`, 'a file ({ path, bytes, modified, format, sha256 })', f)
  })
  if (!isObject(v.host)) throw badField(path, 'host', 'an object', v.host)
  if (!isObject(v.timings)) throw badField(path, 'timings', 'an object', v.timings)
  if (!('results' in v) || v.results === null || typeof v.results !== 'object') throw badField(path, 'results', 'an object', v.results)
  return v as unknown as ResultEnvelope
}

/** The real paths of each task's input files (the path itself when it is gone): what its envelope names. */
export async function taskInputs(record: JobRecord): Promise<Map<string, number>> {
  const owner = new Map<string, number>()
  for (const t of record.tasks)
    for (const f of t.files) {
      const given = resolve(record.cwd, f)
      owner.set(given, t.index)
      owner.set(await realpath(given).catch(() => given), t.index)
    }
  return owner
}

/**
 * Refuses an envelope that is not this task's: of another workload, or naming input files that are
 * not the task's (another task's envelope copied over this one is named with that task).
 */
function belongsTo(envelope: ResultEnvelope, path: string, record: JobRecord, index: number, inputs: Map<string, number>): void {
  if (envelope.workload !== record.workload) throw new ApiError('io', `${path} is the envelope of a ${JSON.stringify(envelope.workload)} run, but the job in job.json runs ${record.workload}`)
  if (record.tasks[index].files.length === 0) return
  for (const f of envelope.input.files) {
    const owner = inputs.get(f.path)
    if (owner === index) continue
    const mine = record.tasks[index].files.join(', ')
    throw new ApiError(
      'io',
      owner === undefined
        ? `${path} is the envelope of a run over ${f.path}, which is not an input of task ${index} (${mine})`
        : `${path} is the envelope of a run over ${f.path}, task ${owner}'s file, not of task ${index} (${mine}): was it copied from tasks/${owner}?`,
    )
  }
}

/**
 * Everything task `index` of the job in `dir` left, each file checked. The task's folder must be a
 * folder inside the job folder (not a link elsewhere).
 */
export async function readTaskRecords(dir: string, record: JobRecord, index: number, inputs: Map<string, number>): Promise<TaskRecords> {
  const problems: string[] = []
  const folder = jobPaths(dir).task(index)
  for (const p of [jobPaths(dir).tasks, folder]) {
    const s = await lstat(p).catch(() => null)
    // A task that never started left no folder: nothing to read, nothing wrong with it.
    if (!s) return { problems }
    if (!s.isDirectory()) return { problems: [`${p} is ${s.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: a task's folder is a folder inside the job folder`] }
  }
  const at = (name: string) => ['tasks', String(index), name]
  const exit = await readChecked(dir, at('exit.json'), SMALL_BYTES, checkExit, problems)
  const error = await readChecked(dir, at('error.json'), SMALL_BYTES, checkError, problems)
  const state = record.executor === 'local' ? await readChecked(dir, at('state.json'), SMALL_BYTES, checkState, problems) : undefined
  const envelope = await readChecked(
    dir,
    at('envelope.json'),
    ENVELOPE_BYTES,
    (v, path) => {
      const e = checkEnvelope(v, path)
      belongsTo(e, path, record, index, inputs)
      return e
    },
    problems,
  )
  return { ...(envelope && { envelope }), ...(error && { error }), ...(exit && { exit }), ...(state && { state }), problems }
}
