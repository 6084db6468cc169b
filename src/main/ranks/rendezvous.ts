// How ranks find rank 0: it listens on a port of its node and publishes host and port in the job
// folder (written whole, then renamed into place, so no rank reads half a file); the others poll
// for that file until it names their job, signed with the job's key (so no one who can write the
// folder can send the ranks elsewhere). Under Slurm rank 0's host is its node's NodeAddr
// (`scontrol show node -o`), since node names need not resolve on other nodes. The file holds no
// secret: the job's id is no credential.
import { execFile } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { ApiError } from '../../shared/errors'
import { writeFileAtomic } from '../io/atomic-write'
import { readRecordFile } from '../io/record-file'
import { proofOf, sameProof } from './handshake'
import type { RankPlacement } from './placement'

export const RENDEZVOUS_FILE = 'ranks-rank0.json'

export interface Rendezvous {
  job: string
  host: string
  port: number
  /** HMAC of job, host and port under the job's key (hex). */
  proof: string
}

export function rendezvousPath(folder: string): string {
  return join(folder, RENDEZVOUS_FILE)
}

export async function publishRendezvous(placement: RankPlacement, key: Buffer, host: string, port: number): Promise<void> {
  const path = rendezvousPath(placement.folder)
  const entry: Rendezvous = { job: placement.job, host, port, proof: proofOf(key, 'rendezvous', placement.job, host, port).toString('hex') }
  try {
    await writeFileAtomic(path, JSON.stringify(entry) + '\n', { overwrite: true })
  } catch (e) {
    throw new ApiError('io', `rank 0 cannot publish its address in ${placement.folder}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/** An earlier start's file, which a rank must not take for this one's. */
export async function removeRendezvous(placement: RankPlacement): Promise<void> {
  await rm(rendezvousPath(placement.folder), { force: true })
}

/** Rank 0's address once its file names this job; an error naming the file past `deadline` (ms since the epoch). */
export async function awaitRendezvous(placement: RankPlacement, key: Buffer, deadline: number, signal?: AbortSignal): Promise<Rendezvous> {
  const path = rendezvousPath(placement.folder)
  let seen = 'no such file'
  for (;;) {
    let entry: Partial<Rendezvous> | undefined
    try {
      // A regular file of a few hundred bytes: a FIFO or a huge file planted there is refused, not waited on.
      entry = JSON.parse((await readRecordFile(path, { maxBytes: 4096 })).toString('utf8'))
    } catch (e) {
      seen = (e as NodeJS.ErrnoException).code === 'ENOENT' || /does not exist$/.test(ApiError.from(e).message) ? 'no such file' : `unreadable: ${e instanceof Error ? e.message : String(e)}`
    }
    if (entry) {
      const { job, host, port, proof } = entry
      if (job !== placement.job) seen = `it names job ${JSON.stringify(job)}, not ${placement.job}`
      else if (typeof host !== 'string' || !Number.isInteger(port) || typeof proof !== 'string' || !sameProof(Buffer.from(proof, 'hex'), proofOf(key, 'rendezvous', job, host, port!)))
        seen = 'it is not signed with this job\'s key'
      else return entry as Rendezvous
    }
    if (signal?.aborted) throw new ApiError('cancelled', 'cancelled')
    if (Date.now() > deadline)
      throw new ApiError(
        'io',
        `rank ${placement.rank}: rank 0's address did not appear in ${path} (${seen}): the job folder must be on a filesystem that every node of the job sees`,
      )
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A command's stdout, or undefined when it fails or takes longer than `ms`. */
function output(command: string, args: string[], ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: ms, encoding: 'utf8' }, (err, stdout) => resolve(err ? undefined : stdout))
  })
}

/**
 * The address other nodes reach this one at: under Slurm the node's NodeAddr, else (ranks of one
 * machine, started by the local launcher) the loopback address.
 */
export async function nodeAddress(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const node = env.SLURMD_NODENAME
  if (!node) return '127.0.0.1'
  // scontrol retries for ~9 s when slurmctld does not answer: bounded.
  const line = await output('scontrol', ['show', 'node', '-o', node], 15_000)
  const addr = line && /(?:^|\s)NodeAddr=(\S+)/.exec(line)?.[1]
  return addr || hostname()
}
