// An envelope read back from a file someone hands Paralab (`paralab rerun`): a results.json, or a
// report whose <script type="application/json" id="paralab-envelope"> element holds it. The file is
// opened only as a regular file of bounded size and parsed as JSON, never evaluated; every field the
// re-run uses is checked, and a wrong one is named (docs/security.md).
import { ApiError } from '../../shared/errors'
import { isWorkloadId } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { readRecordFile } from '../io/record-file'

/** Envelopes (and reports holding one, with their charts and map) larger than this are refused. */
export const MAX_ENVELOPE_FILE_BYTES = 256 * 2 ** 20

/** The report's element that holds the envelope; its JSON writes `<` as \u003c, so no `</script>` can occur inside. */
const ENVELOPE_ELEMENT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi

export async function readEnvelopeFile(path: string): Promise<ResultEnvelope> {
  const text = (await readRecordFile(path, { maxBytes: MAX_ENVELOPE_FILE_BYTES, followSymlink: true })).toString('utf8')
  const json = /\.html?$/i.test(path) || /^\s*<!doctype html|^\s*<html/i.test(text) ? envelopeOfReport(path, text) : text
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (e) {
    throw new ApiError('invalid-input', `${path}: not JSON (${(e as Error).message})`)
  }
  return checkedEnvelope(path, value)
}

/** The JSON text of the report's one envelope element. */
function envelopeOfReport(path: string, html: string): string {
  const found = [...html.matchAll(ENVELOPE_ELEMENT)].filter((m) => /\bid\s*=\s*["']?paralab-envelope["']?(\s|$)/i.test(m[1]))
  if (found.length === 0) throw new ApiError('invalid-input', `${path}: no <script type="application/json" id="paralab-envelope"> element: not a Paralab report`)
  if (found.length > 1) throw new ApiError('invalid-input', `${path}: ${found.length} paralab-envelope elements, where a report has one`)
  if (!/\btype\s*=\s*["']?application\/json["']?/i.test(found[0][1])) throw new ApiError('invalid-input', `${path}: the paralab-envelope element is not of type application/json`)
  return found[0][2]
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
const SHA256 = /^[0-9a-f]{64}$/

/** The envelope, each field a re-run relies on checked: the first wrong one named. */
export function checkedEnvelope(path: string, v: unknown): ResultEnvelope {
  const wrong = (field: string, what: string) => new ApiError('invalid-input', `${path}: ${field} ${what}`)
  if (!isObject(v)) throw wrong('the file', 'holds no result envelope (a JSON object)')
  if (typeof v.workload !== 'string' || !isWorkloadId(v.workload)) throw wrong('workload', `${JSON.stringify(v.workload)} is not a workload this paralab knows`)
  if (typeof v.paralabVersion !== 'string') throw wrong('paralabVersion', 'is missing')
  if (typeof v.createdAt !== 'string' || Number.isNaN(Date.parse(v.createdAt))) throw wrong('createdAt', 'is not a time')
  if (!isObject(v.params)) throw wrong('params', 'is not an object')
  if (!isObject(v.timings)) throw wrong('timings', 'is not an object')
  if (!isObject(v.results)) throw wrong('results', 'is not an object')
  if (v.partial === true) throw wrong('partial', 'is true: the run was cancelled, so its results are not all there to compare')
  if (!isObject(v.input) || !Array.isArray(v.input.files)) throw wrong('input.files', 'is not a list')
  v.input.files.forEach((f: unknown, i: number) => {
    const field = `input.files[${i}]`
    if (!isObject(f)) throw wrong(field, 'is not an object')
    if (typeof f.path !== 'string' || f.path === '' || f.path.includes('\0')) throw wrong(`${field}.path`, 'is not a path')
    if (typeof f.sha256 !== 'string') throw wrong(`${field}.sha256`, `is missing: ${f.path} was read by a run that recorded no sha256, so it cannot be checked`)
    if (!SHA256.test(f.sha256)) throw wrong(`${field}.sha256`, `${JSON.stringify(f.sha256).slice(0, 80)} is not 64 lowercase hexadecimal digits`)
    if (f.bytes !== undefined && !(Number.isSafeInteger(f.bytes) && (f.bytes as number) >= 0)) throw wrong(`${field}.bytes`, 'is not a size')
  })
  return v as unknown as ResultEnvelope
}

