// A result envelope read back for a report: everything in it is checked before it is believed or
// drawn, and the first field that is wrong is named (`input.files[2].bytes`, `timings.gpu.min`),
// so that an edited or truncated file is refused rather than reported. What is checked: the shape
// of every field the report shows, the parameters against the workload's schema, numbers that
// contradict each other (a timing's least above its median, a count that is not whole), paths
// that are not the plain absolute paths a run records, and result checks that name inputs the
// envelope does not list.
import { isAbsolute, normalize } from 'node:path'
import { ApiError } from '../../shared/errors'
import { FILE_FORMATS } from '../../shared/formats'
import { RUN_ID_PATTERN } from '../../shared/api'
import { isWorkloadId, workload, WORKLOAD_IDS } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { validateParams, type ParamSchema } from '../../shared/workloads/schema'

type Json = Record<string, unknown>

/** The envelope's fault: `source` (the file read), the field's path and what is wrong with it. */
class Fault extends Error {}

function fail(field: string, what: string): never {
  throw new Fault(`${field} ${what}`)
}

function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v)
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

function object(v: unknown, field: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(field, `must be an object; got ${shown(v)}`)
  return v as Json
}

function text(v: unknown, field: string, max = 4096): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > max) fail(field, `must be text of 1…${max} characters; got ${shown(v)}`)
  return v
}

function count(v: unknown, field: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) fail(field, `must be a whole number ≥ ${min}; got ${shown(v)}`)
  return v
}

function nonNegative(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(field, `must be a finite number ≥ 0; got ${shown(v)}`)
  return v
}

function date(v: unknown, field: string): string {
  if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v) || Number.isNaN(Date.parse(v))) fail(field, `must be an ISO 8601 time (UTC); got ${shown(v)}`)
  return v
}

/** A path a run records: absolute, already resolved (no `.` or `..` part), no control characters. */
function recordedPath(v: unknown, field: string): string {
  const path = text(v, field)
  if (/[\u0000-\u001f]/.test(path)) fail(field, `holds a control character: ${shown(path)}`)
  if (!isAbsolute(path) && !/^[A-Za-z]:[\\/]/.test(path)) fail(field, `must be the absolute path the run read; got ${shown(path)}`)
  if (/(^|[\\/])\.\.?([\\/]|$)/.test(path) || normalize(path) !== path) fail(field, `${shown(path)} is not a resolved path: it steps through "." or "..", outside the folder it names`)
  return path
}

function timing(v: unknown, field: string): void {
  const t = object(v, field)
  const median = nonNegative(t.median, `${field}.median`)
  const min = nonNegative(t.min, `${field}.min`)
  const max = nonNegative(t.max, `${field}.max`)
  count(t.runs, `${field}.runs`, 1)
  if (min > median) fail(`${field}.min`, `(${min} ms) is above its median (${median} ms): the numbers contradict each other`)
  if (median > max) fail(`${field}.max`, `(${max} ms) is below its median (${median} ms): the numbers contradict each other`)
  if (t.runs === 1 && (min !== median || max !== median)) fail(`${field}.runs`, `is 1, but its least, median and greatest (${min}, ${median}, ${max} ms) differ`)
}

const FORMAT_IDS = new Set(FILE_FORMATS.map((f) => f.id))

function inputFile(v: unknown, field: string): void {
  const f = object(v, field)
  recordedPath(f.path, `${field}.path`)
  count(f.bytes, `${field}.bytes`)
  date(f.modified, `${field}.modified`)
  if (f.format !== undefined && !FORMAT_IDS.has(f.format as string)) fail(`${field}.format`, `must be one of ${[...FORMAT_IDS].join(', ')}; got ${shown(f.format)}`)
  // Provenance an input may record; null, like absent, is "not recorded".
  if (f.sha256 != null && (typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256))) fail(`${field}.sha256`, `must be 64 lowercase hex digits; got ${shown(f.sha256)}`)
  if (f.dataset != null) text(f.dataset, `${field}.dataset`)
  if (f.generator != null) {
    const g = object(f.generator, `${field}.generator`)
    text(g.name, `${field}.generator.name`, 200)
    if (g.parameters != null) object(g.parameters, `${field}.generator.parameters`)
    if (g.seed != null && !(typeof g.seed === 'string' || (typeof g.seed === 'number' && Number.isSafeInteger(g.seed))))
      fail(`${field}.generator.seed`, `must be a whole number or text; got ${shown(g.seed)}`)
  }
}

/** The names an envelope gives its inputs: as the parameters gave them and as the run recorded them. */
function inputNames(params: Json, schema: ParamSchema, files: Json[]): Set<string> {
  const names = new Set(files.map((f) => f.path as string))
  for (const [name, spec] of Object.entries(schema)) if (spec.type === 'files' && Array.isArray(params[name])) for (const p of params[name] as string[]) names.add(p)
  return names
}

/**
 * The envelope, checked; otherwise an 'invalid-input' error naming `source` and the first field
 * that is wrong. Returns it typed, unchanged.
 */
export function checkEnvelope(value: unknown, source: string): ResultEnvelope {
  try {
    return check(value)
  } catch (e) {
    if (e instanceof Fault) throw new ApiError('invalid-input', `${source}: ${e.message}`)
    if (e instanceof ApiError) throw new ApiError('invalid-input', `${source}: ${e.message}`)
    throw new ApiError('invalid-input', `${source}: its results cannot be read as a run's (${e instanceof Error ? e.message : String(e)})`)
  }
}

function check(value: unknown): ResultEnvelope {
  const env = object(value, 'the envelope')
  if (!isWorkloadId(env.workload)) fail('workload', `must be one of ${WORKLOAD_IDS.join(', ')}; got ${shown(env.workload)}`)
  const def = workload(env.workload)
  text(env.paralabVersion, 'paralabVersion', 100)
  if (env.paralabCommit !== undefined && (typeof env.paralabCommit !== 'string' || !/^[0-9a-f]{7,40}(-dirty)?$/.test(env.paralabCommit)))
    fail('paralabCommit', `must be a git commit (hex digits, "-dirty" after them where the tree had changes); got ${shown(env.paralabCommit)}`)
  date(env.createdAt, 'createdAt')
  const params = object(env.params, 'params')
  try {
    validateParams(def.id, def.params as ParamSchema, params)
  } catch (e) {
    fail('params', `do not fit ${def.id}'s parameters: ${e instanceof Error ? e.message.replace(new RegExp(`^${def.id}: `), '') : String(e)}`)
  }
  const input = object(env.input, 'input')
  if (!Array.isArray(input.files)) fail('input.files', `must be a list; got ${shown(input.files)}`)
  input.files.forEach((f, i) => inputFile(f, `input.files[${i}]`))
  const host = object(env.host, 'host')
  text(host.cpu, 'host.cpu', 500)
  count(host.cores, 'host.cores', 1)
  count(host.memoryBytes, 'host.memoryBytes', 1)
  text(host.os, 'host.os', 500)
  text(host.node, 'host.node', 100)
  if (env.device !== undefined) {
    const device = object(env.device, 'device')
    text(device.adapter, 'device.adapter', 500)
    if (typeof device.vendor !== 'string') fail('device.vendor', `must be text; got ${shown(device.vendor)}`)
    text(device.backend, 'device.backend', 500)
    if (typeof device.software !== 'boolean') fail('device.software', `must be true or false; got ${shown(device.software)}`)
  }
  const timings = object(env.timings, 'timings')
  for (const [key, t] of Object.entries(timings)) timing(t, `timings[${JSON.stringify(key)}]`)
  if (env.partial !== undefined && env.partial !== true) fail('partial', `is true or absent; got ${shown(env.partial)}`)
  if (env.missing !== undefined) {
    if (env.partial !== true) fail('missing', 'names runs that did not finish, but the run is not marked partial')
    if (!Array.isArray(env.missing) || env.missing.some((m) => typeof m !== 'string')) fail('missing', `must be a list of names; got ${shown(env.missing)}`)
  }
  if (env.kept !== undefined) {
    const kept = object(env.kept, 'kept')
    if (typeof kept.run !== 'string' || !RUN_ID_PATTERN.test(kept.run)) fail('kept.run', `must be a run id; got ${shown(kept.run)}`)
    if (!Array.isArray(kept.files)) fail('kept.files', `must be a list; got ${shown(kept.files)}`)
    kept.files.forEach((f, i) => {
      if (typeof f !== 'string' || !/^[\w][\w.-]{0,99}$/.test(f)) fail(`kept.files[${i}]`, `must be a plain file name inside the run's folder; got ${shown(f)}`)
    })
  }
  object(env.results, 'results')
  const envelope = env as unknown as ResultEnvelope
  // The results as the report draws them: each timed run, whose times must hold together and
  // whose input must be one the envelope lists.
  const names = inputNames(params, def.params as ParamSchema, input.files as Json[])
  const runs = (def.compared as (e: ResultEnvelope) => ReturnType<typeof def.compared>)(envelope)
  runs.forEach((run, i) => {
    const field = `results (run ${i + 1}: ${[run.backend, run.variant].filter(Boolean).join(' ')}${run.input ? ` on ${run.input}` : ''})`
    timing(run.timing, `${field} timing`)
    if (run.compile_ms !== undefined) nonNegative(run.compile_ms, `${field} compile_ms`)
    nonNegative(run.work.count, `${field} work`)
    for (const part of run.input ? run.input.split(', ') : [])
      if (!names.has(part)) fail(field, `names the input ${shown(part)}, which is neither in params nor in input.files: a path outside what the envelope names`)
    for (const c of run.checks) if (c.name === 'md5' && !/^[0-9a-f]{32}$/.test(c.value)) fail(`${field} md5`, `must be 32 lowercase hex digits; got ${shown(c.value)}`)
  })
  // The tables and charts must be drawable from the results.
  def.tables(envelope.results as never)
  def.charts(envelope.results as never, envelope as never)
  return envelope
}
