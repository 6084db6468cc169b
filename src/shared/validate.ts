// Argument checks for every API request, shared by both transports (IPC and WebSocket):
// whatever crosses a process boundary is untrusted until it passes here.
import { API_METHODS, CHART_SIZE_LIMITS, RUN_ID_PATTERN, RUN_LABEL_MAX, type ApiMethod } from './api'
import { CLUSTER_FIELDS, CLUSTER_JOB_ID, checkClusterRequest } from './cluster'
import { ApiError } from './errors'
import { CHART_KINDS } from './charts/spec'
import { workload } from './workloads'
import { validateParams } from './workloads/schema'

function fail(message: string): never {
  throw new ApiError('invalid-argument', message)
}

function quote(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v)
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(`${what} must be an object`)
  return v as Record<string, unknown>
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], what: string): T {
  if (typeof v !== 'string' || !allowed.includes(v as T)) fail(`${what} must be one of ${allowed.join(', ')}; got ${quote(v)}`)
  return v as T
}

/** A bare file name: exports choose their folder through a dialog, never through the request. */
function fileName(v: unknown): string {
  if (typeof v !== 'string' || !/^[\w.,() -]{1,200}$/.test(v) || v.startsWith('.')) fail(`fileName must be a plain file name; got ${quote(v)}`)
  return v
}

function chartSize(v: unknown): void {
  const size = object(v, 'size')
  const [lo, hi] = CHART_SIZE_LIMITS.side
  for (const k of ['width', 'height'] as const)
    if (size[k] !== undefined && (!Number.isInteger(size[k]) || (size[k] as number) < lo || (size[k] as number) > hi)) fail(`size.${k} must be an integer in ${lo}…${hi}; got ${quote(size[k])}`)
  const [slo, shi] = CHART_SIZE_LIMITS.scale
  if (size.scale !== undefined && (typeof size.scale !== 'number' || !(size.scale >= slo && size.scale <= shi))) fail(`size.scale must be a number in ${slo}…${shi}; got ${quote(size.scale)}`)
  for (const k of Object.keys(size)) if (!['width', 'height', 'scale'].includes(k)) fail(`size has no ${quote(k)}; it takes width, height and scale`)
}

/** Requests nest at most this deep: code that walks a value recursively (a JSON writer, a chart library) overflows its stack on far deeper ones. */
export const MAX_REQUEST_DEPTH = 64
/**
 * Values a chart to export holds at most: the dashboard's charts fit (a 256 × 256 heatmap, a dozen
 * lines of 10 000 prefixes); drawing the largest takes seconds beside the thread that answers
 * requests, and its reply (~16 MB) is sent within a second. A 2500 × 2500 heatmap took minutes and gigabytes.
 */
export const MAX_CHART_VALUES = 2 ** 17

/** How deep `v` nests and how many values it holds, walked without recursion; stops counting past the limits. */
function measure(v: unknown, maxDepth: number, maxValues = Infinity): { depth: number; values: number } {
  const stack: unknown[] = [v]
  const depths: number[] = [1]
  let depth = 1
  let values = 1
  while (stack.length && depth <= maxDepth && values <= maxValues) {
    const x = stack.pop()
    const d = depths.pop()! + 1
    if (typeof x !== 'object' || x === null) continue
    for (const child of Array.isArray(x) ? x : Object.values(x)) {
      values++
      if (d > depth) depth = d
      // Only containers go on the stack: a long array of numbers is counted in one pass.
      if (typeof child === 'object' && child !== null) {
        stack.push(child)
        depths.push(d)
      }
    }
  }
  return { depth, values }
}

/**
 * The Slurm fields of a dashboard's cluster run, checked as the CLI checks its flags. Nothing else:
 * the backend chooses the run's folder, so a request that names one (or any sbatch option) is refused.
 */
function clusterRequest(v: unknown): void {
  const r = object(v, 'request')
  const fields = Object.keys(CLUSTER_FIELDS)
  for (const k of Object.keys(r))
    if (!fields.includes(k)) fail(`a cluster request has no ${quote(k)}; it takes ${fields.join(', ')} (the server chooses the run's folder)`)
  checkClusterRequest(r)
}

/**
 * Files one job a request starts may name: each becomes a part of its envelope (a stats file's is
 * ~12 KB), which every client is sent; 10 000 made a 121 MB envelope. The command line takes more.
 */
export const MAX_REQUEST_FILES = 1000

/** A job's workload and parameters, as startJob and startView take them. */
function checkStart([id, params]: unknown[]): void {
  const w = workload(id)
  validateParams(w.id, w.params, params)
  for (const [name, spec] of Object.entries(w.params) as [string, { type: string }][]) {
    const files = (params as Record<string, unknown>)[name]
    if (spec.type === 'files' && Array.isArray(files) && files.length > MAX_REQUEST_FILES)
      fail(`${w.id}: parameter ${name} names ${files.length} files; a job started from the dashboard takes at most ${MAX_REQUEST_FILES} (the command line takes more)`)
  }
}

/** Per method: its arity and the checks of its arguments. */
const CHECKS: Record<ApiMethod, { arity: number; check?(args: unknown[]): void }> = {
  deviceInfo: { arity: 0 },
  startJob: { arity: 2, check: checkStart },
  startView: { arity: 2, check: checkStart },
  cancelJob: {
    arity: 1,
    check([jobId]) {
      if (typeof jobId !== 'string' || jobId.length > 100) fail('jobId must be a string')
    },
  },
  exportChart: {
    arity: 1,
    check([req]) {
      const r = object(req, 'request')
      const chart = object(r.chart, 'chart')
      oneOf(chart.kind, CHART_KINDS, 'chart.kind')
      object(chart.data, 'chart.data')
      if (measure(chart.data, MAX_REQUEST_DEPTH, MAX_CHART_VALUES).values > MAX_CHART_VALUES)
        fail(`chart.data holds more than ${MAX_CHART_VALUES} values; a chart to export holds at most that many (a 256 × 256 heatmap fits)`)
      oneOf(r.format, ['png', 'svg'], 'format')
      if (r.size !== undefined) chartSize(r.size)
      fileName(r.fileName)
    },
  },
  exportResults: {
    arity: 1,
    check([req]) {
      const r = object(req, 'request')
      const envelope = object(r.envelope, 'envelope')
      workload(envelope.workload)
      object(envelope.results, 'envelope.results')
      oneOf(r.format, ['csv', 'json', 'html'], 'format')
      if (r.table !== undefined && (typeof r.table !== 'string' || r.table.length > 100)) fail(`table must be a table name; got ${quote(r.table)}`)
      fileName(r.fileName)
    },
  },
  exportResultFile: {
    arity: 1,
    check([req]) {
      const r = object(req, 'request')
      workload(r.workload)
      object(r.results, 'results')
      // A name the engine offers, never a path: it checks the name against its list.
      if (typeof r.file !== 'string' || !/^[a-z0-9][a-z0-9.-]{0,99}$/.test(r.file)) fail(`file must be a result file's name; got ${quote(r.file)}`)
      fileName(r.fileName)
    },
  },
  exportRunFile: {
    arity: 1,
    check([req]) {
      const r = object(req, 'request')
      // A run id and a name the engine offers, never a path.
      if (typeof r.run !== 'string' || !RUN_ID_PATTERN.test(r.run)) fail(`run must be a run id from listRuns; got ${quote(r.run)}`)
      if (typeof r.file !== 'string' || !/^[a-z0-9][a-z0-9.-]{0,99}$/.test(r.file)) fail(`file must be a result file's name; got ${quote(r.file)}`)
      fileName(r.fileName)
      for (const k of Object.keys(r)) if (!['run', 'file', 'fileName'].includes(k)) fail(`a run file request has no ${quote(k)}; it takes run, file and fileName`)
    },
  },
  listDataFiles: { arity: 0 },
  openFiles: { arity: 0 },
  browseData: {
    arity: 1,
    check([folder]) {
      // A path the backend confines to the data folders (DataAccess.folder); here only its shape.
      if (folder !== null && (typeof folder !== 'string' || folder.length === 0 || folder.length > 4096 || folder.includes('\0')))
        fail(`folder must be null or a folder path; got ${quote(folder)}`)
    },
  },
  listDatasets: {
    arity: 1,
    check([path]) {
      // A path the backend confines to the readable files (DataAccess.check); here only its shape.
      if (typeof path !== 'string' || path.length === 0 || path.length > 4096 || path.includes('\0')) fail(`path must be a file path; got ${quote(path)}`)
    },
  },
  example: {
    arity: 1,
    check([id]) {
      workload(id)
    },
  },
  listRuns: { arity: 0 },
  clusterInfo: { arity: 0 },
  submitClusterJob: {
    arity: 3,
    check([id, params, request]) {
      const w = workload(id)
      validateParams(w.id, w.params, params)
      clusterRequest(request)
    },
  },
  listClusterJobs: { arity: 0 },
  cancelClusterJob: {
    arity: 1,
    check([jobId]) {
      if (typeof jobId !== 'string' || !CLUSTER_JOB_ID.test(jobId)) fail(`jobId must be a cluster job id such as 1234 or 1234_2; got ${quote(jobId)}`)
    },
  },
  openRun: {
    arity: 1,
    check([id]) {
      // Names a file in the history folder: only the shape listRuns gives, never a path.
      if (typeof id !== 'string' || !RUN_ID_PATTERN.test(id)) fail(`id must be a run id from listRuns; got ${quote(id)}`)
    },
  },
  compareGrids: {
    arity: 2,
    check(ids) {
      // Each names a run's files in the history folder: only the shape listRuns gives, never a path.
      for (const id of ids) if (typeof id !== 'string' || !RUN_ID_PATTERN.test(id)) fail(`each run must be a run id from listRuns; got ${quote(id)}`)
    },
  },
  labelRun: {
    arity: 2,
    check([id, label]) {
      if (typeof id !== 'string' || !RUN_ID_PATTERN.test(id)) fail(`id must be a run id from listRuns; got ${quote(id)}`)
      if (typeof label !== 'string') fail(`label must be text; got ${quote(label)}`)
      if ([...label].length > RUN_LABEL_MAX) fail(`label must be at most ${RUN_LABEL_MAX} characters; got ${[...label].length}`)
      // eslint-disable-next-line no-control-regex
      if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(label)) fail(`label must be one line without control characters; got ${quote(label)}`)
    },
  },
}

/** Throws ApiError 'bad-request' (not an API call) or 'invalid-argument' (wrong values) unless `args` fit `method`. */
export function validateRequest(method: unknown, args: unknown): asserts args is unknown[] {
  // What is not a call of the API at all is a bad request; a call with wrong values, an invalid argument.
  const badRequest = (message: string) => new ApiError('bad-request', message)
  if (typeof method !== 'string' || !(API_METHODS as readonly string[]).includes(method))
    throw badRequest(`method must be one of ${API_METHODS.join(', ')}; got ${quote(method)}`)
  const m = method as ApiMethod
  if (!Array.isArray(args)) throw badRequest('args must be a list')
  const { arity, check } = CHECKS[m]
  if (args.length !== arity) throw badRequest(`${m} takes ${arity} argument(s), got ${args.length}`)
  if (measure(args, MAX_REQUEST_DEPTH).depth > MAX_REQUEST_DEPTH) throw new ApiError('invalid-argument', `${m}: the arguments nest more than ${MAX_REQUEST_DEPTH} levels deep`)
  check?.(args)
}
