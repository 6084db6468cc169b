// The secret a job's ranks share, so that a rank talks only to ranks of its own job: 32 random
// bytes, as hex. Ranks started by Paralab on this machine (launch.ts) get it in their environment
// (PARALAB_RANKS_KEY, readable only by this user); ranks that Slurm starts through a job script
// read it from `ranks.key` in their task folder, which the command that plans the job writes
// (mode 0600, exclusive create) before the job is submitted, so no rank can find it missing or
// take another's. Nothing that others can read holds it: not the rendezvous file, not the script.
import { randomBytes } from 'node:crypto'
import { open, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiError } from '../../shared/errors'
import { readRecordFile } from '../io/record-file'
import type { RankPlacement } from './placement'

export const RANKS_KEY_VARIABLE = 'PARALAB_RANKS_KEY'
export const RANKS_KEY_FILE = 'ranks.key'
export const RANKS_KEY_BYTES = 32

/** A fresh key, as the hex text the variable and the file hold. */
export function newRanksKey(): string {
  return randomBytes(RANKS_KEY_BYTES).toString('hex')
}

/**
 * Writes a fresh key into `folder` (a task folder, before its job is submitted): created with mode
 * 0600 and O_EXCL, so a file or link someone planted in its place is never written through. An
 * earlier job's key there (a folder used again) is replaced.
 */
export async function writeRanksKey(folder: string): Promise<void> {
  const path = join(folder, RANKS_KEY_FILE)
  try {
    await rm(path, { force: true })
    const file = await open(path, 'wx', 0o600)
    try {
      await file.writeFile(newRanksKey() + '\n')
    } finally {
      await file.close()
    }
  } catch (e) {
    throw new ApiError('io', `cannot write the ranks' key ${path}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function parseKey(text: string, from: string): Buffer {
  const hex = text.trim()
  if (!/^[0-9a-f]+$/.test(hex) || hex.length !== 2 * RANKS_KEY_BYTES) throw new ApiError('invalid-argument', `${from} must hold ${RANKS_KEY_BYTES} bytes as hex (${2 * RANKS_KEY_BYTES} digits)`)
  return Buffer.from(hex, 'hex')
}

/** This rank's job key: the environment's, else its folder's `ranks.key` (this user's, mode 0600). */
export async function ranksKey(placement: RankPlacement, env: NodeJS.ProcessEnv = process.env): Promise<Buffer> {
  const given = env[RANKS_KEY_VARIABLE]
  if (given) return parseKey(given, RANKS_KEY_VARIABLE)
  const path = join(placement.folder, RANKS_KEY_FILE)
  let bytes: Buffer
  try {
    bytes = await readRecordFile(path, { maxBytes: 4 * RANKS_KEY_BYTES, ownerOnly: true })
  } catch (e) {
    throw new ApiError(
      'io',
      `rank ${placement.rank}: the ranks of a job prove to each other that they belong to it with a key, which ${RANKS_KEY_VARIABLE} or ${path} holds, and ${ApiError.from(e).message} (a cluster job's key is written when the job is planned)`,
    )
  }
  return parseKey(bytes.toString('latin1'), path)
}
