// `paralab rerun`: the run an envelope records, made again on the same inputs with the same
// parameters. Each input is the file the envelope's parameters name, and its sha256 must be the one
// recorded before anything runs; the parameters that would write files (outputs, checkpoints) are
// left out, so a re-run writes nothing but what it is asked to. The two runs' results are then set
// side by side (src/shared/workloads/agreement.ts).
import { stat } from 'node:fs/promises'
import { realpath } from 'node:fs/promises'
import { basename, isAbsolute, normalize, resolve, sep } from 'node:path'
import { ApiError } from '../../shared/errors'
import { workload } from '../../shared/workloads'
import { agreement, type Agreement } from '../../shared/workloads/agreement'
import type { InputFile, ResultEnvelope } from '../../shared/workloads/envelope'
import { validateParams, type ParamSchema } from '../../shared/workloads/schema'
import { DataAccess } from '../backend/data-files'
import { readEnvelopeFile } from '../backend/envelope-file'
import { InputDigest } from '../io/input-digest'
import type { ProgressStyle } from '../terminal/progress'
import { runJob } from './run-job'

export interface Rerun {
  before: ResultEnvelope
  after: ResultEnvelope
  agreement: Agreement
  /** The inputs checked, as the envelope names them. */
  inputs: InputFile[]
  /** Parameters of the first run that the re-run left out (they write files). */
  leftOut: string[]
}

export async function rerun(path: string, progress: ProgressStyle = 'auto'): Promise<Rerun> {
  const before = await readEnvelopeFile(path)
  const def = workload(before.workload)
  const schema = def.params as ParamSchema
  const params: Record<string, unknown> = { ...(before.params as Record<string, unknown>) }
  const leftOut = Object.keys(params).filter((name) => schema[name]?.cliOnly)
  for (const name of leftOut) delete params[name]

  // The files param names the inputs; the records give each one's real path and sha256, in the order read.
  const inputs = [...new Map(before.input.files.map((f) => [f.path, f])).values()]
  const sameName = new Map<string, string>()
  const filesParam = Object.entries(schema).find(([, spec]) => spec.type === 'files')?.[0]
  if (filesParam) {
    const given = params[filesParam]
    if (!Array.isArray(given) || given.some((g) => typeof g !== 'string')) throw new ApiError('invalid-input', `${path}: params.${filesParam} is not a list of files`)
    if (given.length !== inputs.length)
      throw new ApiError('invalid-input', `${path}: params.${filesParam} names ${given.length} file${given.length === 1 ? '' : 's'}, and input.files records ${inputs.length} read: each input needs its sha256`)
    for (const [i, file] of inputs.entries()) {
      const at = before.input.files.indexOf(file)
      if (!(await names(given[i] as string, file.path)))
        throw new ApiError('invalid-input', `${path}: input.files[${at}].path ${file.path} is not the file params.${filesParam}[${i}] names (${given[i]}): the envelope was edited`)
      sameName.set(given[i] as string, file.path)
    }
    params[filesParam] = inputs.map((f) => f.path)
  } else if (inputs.length) throw new ApiError('invalid-input', `${path}: input.files lists ${inputs.length} files, but ${def.id} reads none`)

  try {
    validateParams(def.id, schema, params)
  } catch (e) {
    throw new ApiError('invalid-input', `${path}: params: ${ApiError.from(e).message}`)
  }
  // Before any work: each input is a regular file whose bytes are the ones the run read.
  const files = new DataAccess()
  for (const file of inputs) {
    const real = await files.check(file.path)
    if (real !== file.path) throw new ApiError('invalid-input', `${file.path} is now a link to ${real}, not the file the run read`)
    const s = await stat(real)
    const sum = await new InputDigest(real, { size: s.size, mtimeMs: s.mtimeMs }).finish()
    if (sum !== file.sha256) throw new ApiError('invalid-input', `${file.path}: its sha256 is ${sum}, not the ${file.sha256} the envelope records: the file was replaced or changed since the run`)
  }

  const after = await runJob(def.id, params, undefined, progress)
  // The files could change while they were read again: the re-run's own digests say.
  for (const file of after.input.files) {
    const was = inputs.find((f) => f.path === file.path)
    if (was && file.sha256 !== was.sha256) throw new ApiError('io', `${file.path} changed while it was read again (sha256 ${file.sha256})`)
  }
  return { before, after, agreement: agreement(before, after, sameName), inputs, leftOut }
}

/** Whether `given` (a path as the run was given it) names `recorded` (the real path it read). */
async function names(given: string, recorded: string): Promise<boolean> {
  if (basename(given) !== basename(recorded)) return false
  const here = await realpath(resolve(given)).catch(() => null)
  if (here === recorded) return true
  // Relative to the folder the run started in: the recorded path ends with it, going up nowhere.
  const rel = normalize(given)
  return !isAbsolute(rel) && !rel.split(sep).includes('..') && recorded.endsWith(sep + rel)
}
