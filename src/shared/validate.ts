// Argument checks for every API request, shared by both transports (IPC and WebSocket):
// whatever crosses a process boundary is untrusted until it passes here.
import { API_METHODS, ApiError, type ApiMethod } from './api'
import { JOB_KINDS, type JobKind } from './jobs'
import { PRECISIONS, STATS_BACKENDS } from './workloads/stats/types'
import { CHART_KINDS } from './charts/spec'

function fail(message: string): never {
  throw new ApiError('invalid-argument', message)
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (!isObject(v)) fail(`${what} must be an object`)
  return v
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], what: string): T {
  if (typeof v !== 'string' || !allowed.includes(v as T)) fail(`${what} must be one of ${allowed.join(', ')}; got ${JSON.stringify(v)}`)
  return v as T
}

function int(v: unknown, min: number, max: number, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(`${what} must be an integer in ${min}…${max}; got ${JSON.stringify(v)}`)
  return v
}

function optionalInt(v: unknown, min: number, max: number, what: string): number | undefined {
  return v === undefined ? undefined : int(v, min, max, what)
}

function stringList(v: unknown, what: string, nonEmpty = true): string[] {
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s.length === 0 || s.length > 4096)) fail(`${what} must be a list of names`)
  if (nonEmpty && v.length === 0) fail(`${what} must not be empty`)
  return v as string[]
}

/** A bare file name: exports choose their folder through a dialog, never through the request. */
function fileName(v: unknown): string {
  if (typeof v !== 'string' || !/^[\w.,() -]{1,200}$/.test(v) || v.startsWith('.')) fail(`fileName must be a plain file name; got ${JSON.stringify(v)}`)
  return v
}

function jobParams(kind: JobKind, v: unknown): void {
  const p = object(v, 'params')
  if (kind === 'bench-device') {
    optionalInt(p.readBytes, 1024, 2 ** 34, 'readBytes')
    optionalInt(p.repeats, 1, 100, 'repeats')
  } else if (kind === 'stats') {
    stringList(p.files, 'files')
    if (p.columns !== undefined) stringList(p.columns, 'columns')
    const backends = stringList(p.backends, 'backends')
    for (const b of backends) oneOf(b, STATS_BACKENDS, 'backend')
    oneOf(p.precision, PRECISIONS, 'precision')
    int(p.repeat, 1, 1000, 'repeat')
    int(p.batches, 1, 10_000, 'batches')
  }
}

function chartSpec(v: unknown): void {
  const c = object(v, 'chart')
  oneOf(c.kind, CHART_KINDS, 'chart.kind')
  object(c.data, 'chart.data')
}

/** Throws ApiError('invalid-argument') unless `args` fit `method`. */
export function validateRequest(method: unknown, args: unknown): asserts args is unknown[] {
  const m = oneOf(method, API_METHODS, 'method') as ApiMethod
  if (!Array.isArray(args)) fail('args must be a list')
  const arity: Record<ApiMethod, number> = {
    deviceInfo: 0,
    startJob: 2,
    cancelJob: 1,
    exportChart: 1,
    exportResults: 1,
    listDataFiles: 0,
    openFiles: 0,
  }
  if (args.length !== arity[m]) fail(`${m} takes ${arity[m]} argument(s), got ${args.length}`)
  switch (m) {
    case 'startJob':
      jobParams(oneOf(args[0], JOB_KINDS, 'job kind'), args[1])
      break
    case 'cancelJob':
      if (typeof args[0] !== 'string' || args[0].length > 100) fail('jobId must be a string')
      break
    case 'exportChart': {
      const r = object(args[0], 'request')
      chartSpec(r.chart)
      oneOf(r.format, ['png', 'svg'], 'format')
      fileName(r.fileName)
      break
    }
    case 'exportResults': {
      const r = object(args[0], 'request')
      const result = object(r.result, 'result')
      if (!Array.isArray(result.files)) fail('result.files must be a list')
      oneOf(r.format, ['csv', 'json'], 'format')
      fileName(r.fileName)
      break
    }
  }
}
