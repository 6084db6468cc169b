// The files a landslide run writes (--output, --asc, --gif, …), checked before any work.
import { access, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ApiError } from '../../../shared/errors'

/** Refuses, before any work, a target that exists (without force) or whose folder is missing. */
export async function checkTarget(path: string, force: boolean, folder = false): Promise<void> {
  const s = await stat(path).catch(() => null)
  if (folder) {
    if (!s?.isDirectory()) throw new ApiError('io', `${path}: no such folder for the frames`)
    return
  }
  if (s && !force) throw new ApiError('io', `${path} exists (use --force to overwrite)`)
  if (s?.isDirectory()) throw new ApiError('io', `cannot write ${path}: it is a folder`)
  const parent = dirname(path)
  await access(parent).catch(() => {
    throw new ApiError('io', `cannot write ${path}: its folder ${parent} does not exist`)
  })
}
