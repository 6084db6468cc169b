// `bench … --save FILE`: the figures as JSON in FILE, never over an existing file without --force,
// checked before the bench runs (a bench takes minutes; its figures should not be lost at the end).
import { stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ApiError } from '../../shared/errors'
import { writeFileAtomic } from '../io/atomic-write'

export const SAVE_OPTIONS = { save: { type: 'string' }, force: { type: 'boolean' } } as const
export const SAVE_HELP = ['  --save FILE  also write that JSON object to FILE', '  --force  replace FILE if it exists']

/** Refuses, before any work, a FILE that exists (without --force), is a folder, or lies in no folder. */
export async function checkSave(path: string | undefined, force: boolean): Promise<void> {
  if (path === undefined) return
  const s = await stat(path).catch(() => null)
  if (s?.isDirectory()) throw new ApiError('io', `--save ${path}: it is a folder`)
  if (s && !force) throw new ApiError('io', `--save ${path} exists (use --force to replace it)`)
  if (!(await stat(dirname(path)).catch(() => null))?.isDirectory()) throw new ApiError('io', `--save ${path}: its folder ${dirname(path)} does not exist`)
}

export async function saveJson(path: string | undefined, value: unknown, force: boolean): Promise<void> {
  if (path !== undefined) await writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n', { overwrite: force })
}
