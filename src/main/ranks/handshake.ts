// How two ranks prove to each other that they belong to the same job before either believes a
// byte of the other: the accepting rank sends a fresh nonce; the connecting rank answers with its
// rank, job, port, a nonce of its own and an HMAC-SHA256 under the job's key of both nonces, the
// job and both ranks; the accepting rank checks it and answers with its own HMAC of the same, which
// the connecting rank checks before it sends or reads anything else. Each proof names its role and
// both ranks, so no proof can be replayed on another connection, in the other direction or for
// another rank; a stranger who knows the job's id (the rendezvous file publishes it) but not its key
// learns nothing and is refused.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { ApiError } from '../../shared/errors'
import type { Link } from './link'
import { Kind, MAX_FRAME_BYTES, frame, textFrame, textOf, type RankArray } from './wire'

const PROTOCOL = 'paralab-ranks/1'
export const NONCE_BYTES = 32

/** An HMAC-SHA256 under the job's key of these values, encoded without ambiguity. */
export function proofOf(key: Buffer, role: 'dialer' | 'acceptor' | 'rendezvous', ...values: (string | number | Buffer)[]): Buffer {
  const text = JSON.stringify([PROTOCOL, role, ...values.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : v))])
  return createHmac('sha256', key).update(text).digest()
}

/** Whether `given` is `expected`, compared in constant time. */
export function sameProof(given: Uint8Array | Buffer, expected: Buffer): boolean {
  return given.byteLength === expected.length && timingSafeEqual(given, expected)
}

function bytesOf(data: RankArray): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength)
}

export interface Hello {
  rank: number
  job: string
  port: number
}

interface Job {
  key: Buffer
  job: string
  /** This rank. */
  rank: number
}

const HEX = (n: number) => new RegExp(`^[0-9a-f]{${2 * n}}$`)

/** A hello's fields, strictly: anything else is undefined. */
function parseHello(text: string): (Hello & { nonce: Buffer; proof: Buffer }) | undefined {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!v || typeof v !== 'object') return undefined
  const h = v as Record<string, unknown>
  if (!Number.isInteger(h.rank) || typeof h.job !== 'string' || !Number.isInteger(h.port) || (h.port as number) < 1 || (h.port as number) > 65535) return undefined
  if (typeof h.nonce !== 'string' || !HEX(NONCE_BYTES).test(h.nonce) || typeof h.proof !== 'string' || !HEX(32).test(h.proof)) return undefined
  return { rank: h.rank as number, job: h.job, port: h.port as number, nonce: Buffer.from(h.nonce, 'hex'), proof: Buffer.from(h.proof, 'hex') }
}

/**
 * The accepting side: challenges the peer and returns its proved hello, or rejects with why it is
 * refused (the caller closes the connection). `accepts` says which ranks may connect to this one.
 */
export async function acceptHello(link: Link, job: Job, accepts: (rank: number) => boolean, deadline: number, deadlineText: string): Promise<Hello> {
  const challenge = randomBytes(NONCE_BYTES)
  link.socket.write(frame(Kind.Challenge, 0, challenge))
  const f = await link.next(deadline, deadlineText)
  if (f.kind !== Kind.Hello) throw new Error(`its first frame is of kind ${f.kind}, not a hello`)
  const h = parseHello(textOf(f.data))
  if (!h) throw new Error('its hello is not { rank, job, port, nonce, proof }')
  if (h.job !== job.job) throw new Error(`its hello names another job (${JSON.stringify(h.job.slice(0, 100))})`)
  if (!accepts(h.rank)) throw new Error(`its hello names rank ${h.rank}, which does not connect to rank ${job.rank}`)
  if (!sameProof(h.proof, proofOf(job.key, 'dialer', job.job, h.rank, job.rank, challenge, h.nonce))) throw new Error(`its hello as rank ${h.rank} does not prove it holds the job's key`)
  link.socket.write(frame(Kind.Welcome, 0, proofOf(job.key, 'acceptor', job.job, job.rank, h.rank, challenge, h.nonce)))
  link.reader.maxBytes = MAX_FRAME_BYTES
  return { rank: h.rank, job: h.job, port: h.port }
}

/**
 * The connecting side: answers the challenge of the rank it dialed (`target`) and checks that rank's
 * proof; resolves once the connection is known to lead to rank `target` of this job.
 */
export async function dialHello(link: Link, job: Job & { port: number }, target: number, deadline: number, what: string): Promise<void> {
  const c = await link.next(deadline, `${what}: it sent no challenge`)
  if (c.kind !== Kind.Challenge || c.data.byteLength !== NONCE_BYTES) throw new ApiError('io', `${what}: it is not a rank of Paralab (its first frame is no challenge)`)
  const challenge = Buffer.from(bytesOf(c.data))
  const nonce = randomBytes(NONCE_BYTES)
  const proof = proofOf(job.key, 'dialer', job.job, job.rank, target, challenge, nonce)
  link.socket.write(textFrame(Kind.Hello, { rank: job.rank, job: job.job, port: job.port, nonce: nonce.toString('hex'), proof: proof.toString('hex') }))
  const w = await link.next(deadline, `${what}: it did not answer the hello`)
  if (w.kind !== Kind.Welcome || !sameProof(bytesOf(w.data), proofOf(job.key, 'acceptor', job.job, target, job.rank, challenge, nonce)))
    throw new ApiError('io', `${what}: it is not rank ${target} of this job (it does not prove it holds the job's key)`)
  link.reader.maxBytes = MAX_FRAME_BYTES
}
