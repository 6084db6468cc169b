// The envelope a report is made of: a results.json (or any envelope file) as given, or a run
// folder (`--out DIR`, a merged cluster run) holding one. The folder's results.json is read only
// when it is a regular file in that folder (never a link leading elsewhere, nor a FIFO), and no
// larger than an envelope may be.
import { lstat, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiError } from '../../shared/errors'
import { readJsonRecord } from '../io/record-file'

/** The most bytes an envelope file may hold (a landslide run's maps make the largest). */
export const MAX_ENVELOPE_BYTES = 512 * 2 ** 20

/** The parsed JSON of the envelope at `source`, and the file it was read from. */
export async function readEnvelope(source: string): Promise<{ value: unknown; file: string }> {
  const s = await stat(source).catch(() => {
    throw new ApiError('io', `${source}: no such file or folder`)
  })
  const file = s.isDirectory() ? join(source, 'results.json') : source
  if (s.isDirectory() && !(await lstat(file).catch(() => null))) throw new ApiError('io', `${source}: this folder holds no results.json (give a run's --out folder or its envelope)`)
  // A file named on the command line is the user's choice, link or not; one a folder names must lie in it.
  const value = await readJsonRecord(file, { maxBytes: MAX_ENVELOPE_BYTES, followSymlink: !s.isDirectory() }).catch((e: unknown) => {
    const err = ApiError.from(e)
    throw new ApiError(err.code === 'io' ? 'invalid-input' : err.code, err.message)
  })
  return { value, file }
}
