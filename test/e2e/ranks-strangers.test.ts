// `paralab landslide` in ranks (the local launcher, real processes and sockets) with strangers at
// its door: rank 2 is held stopped (SIGSTOP) so that rank 0 keeps listening, while a stranger sends
// rank 0 the 12-byte frame of an unknown element type, forged hellos that know the job's id (from
// the rendezvous file) but not its key, a header announcing 0xFFFFFFF0 bytes, and 500 idle
// connections; each connection is closed (at once, or after the hello deadline) with its reason in
// rank 0's log, and once rank 2 goes on the job ends with the reference md5 on every rank. A rank
// stopped mid-run is named by every other within --rank-timeout, and every rank exits 1.
// Runs the built CLI (npm run build).
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchRanks, type LaunchedRanks, type RankExit } from '../../src/main/ranks/launch'
import { HELLO_DEADLINE_MS } from '../../src/main/ranks/join-ranks'
import { Kind, frame, textFrame } from '../../src/main/ranks/wire'
import { CLI } from '../helpers/serve'

const DATA = join(__dirname, '../../../shared/data/landslide')
const TESSINA = ['header', 'dem', 'source'].map((f) => join(DATA, `tessina_${f}.txt`))
const MD5_100 = 'f9ded733d6c9e13963e41ea0cc37a7d4'

const folders: string[] = []
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'paralab-ranks-strangers-'))
  folders.push(d)
  return d
}
const launched: LaunchedRanks[] = []
afterAll(() => {
  for (const job of launched)
    for (const p of job.processes)
      if (p.exitCode === null && p.signalCode === null) {
        p.kill('SIGCONT')
        p.kill('SIGKILL')
      }
  folders.forEach((d) => rmSync(d, { recursive: true, force: true }))
})

const launch = (ranks: number, args: string[]) => {
  const job = launchRanks({ command: process.execPath, args: [CLI, 'landslide', ...TESSINA, ...args], ranks, folder: folder(), env: { PARALAB_GPU: 'off' } })
  launched.push(job)
  return job
}

/** A rank's stderr as it comes. */
function watch(job: LaunchedRanks, rank: number): { text: () => string; until: (re: RegExp, ms: number) => Promise<void> } {
  let text = ''
  job.processes[rank].stderr!.on('data', (t: string) => (text += t))
  return {
    text: () => text,
    until: async (re, ms) => {
      const end = Date.now() + ms
      while (!re.test(text)) {
        if (Date.now() > end) throw new Error(`rank ${rank} did not write ${re} within ${ms} ms; it wrote: ${text}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
  }
}

interface Stranger {
  socket: Socket
  /** Resolves with the ms from connecting to the rank closing the connection. */
  closed: Promise<number>
  received: () => number
}

function stranger(port: number, send?: Buffer): Promise<Stranger> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    let received = 0
    let opened = 0
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - opened)))
    socket.on('data', (b) => (received += b.length))
    socket.on('error', () => {})
    socket.once('connect', () => {
      opened = Date.now()
      if (send) socket.write(send)
      resolve({ socket, closed, received: () => received })
    })
    socket.once('error', reject)
  })
}

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])

const header = (length: number, kind: number, type: number) => {
  const b = Buffer.alloc(12)
  b.writeUInt32LE(length, 0)
  b.writeUInt8(kind, 4)
  b.writeUInt8(type, 5)
  return b
}

const envelopeOf = (e: RankExit) => {
  expect(e.code, e.stderr).toBe(0)
  return JSON.parse(e.stdout)
}

describe('strangers at rank 0\'s port', () => {
  let job: LaunchedRanks
  let zero: ReturnType<typeof watch>
  let port: number
  let jobId: string

  beforeAll(async () => {
    job = launch(3, ['--steps', '100', '--json'])
    // Rank 2 never connects until let go: rank 0 keeps listening meanwhile.
    job.processes[2].kill('SIGSTOP')
    zero = watch(job, 0)
    const file = join(folders.at(-1)!, 'ranks-rank0.json')
    const end = Date.now() + 60_000
    while (!existsSync(file)) {
      if (Date.now() > end) throw new Error('rank 0 published no address')
      await new Promise((r) => setTimeout(r, 50))
    }
    const published = JSON.parse(readFileSync(file, 'utf8'))
    expect(Object.keys(published).sort()).toEqual(['host', 'job', 'port', 'proof'])
    port = published.port
    jobId = published.job
  }, 90_000)

  it('the 12-byte frame of an unknown element type closes that connection, and only it', async () => {
    const s = await stranger(port, header(0, Kind.Data, 200))
    // Closed for what it sent (the log says so), not at the hello deadline.
    await s.closed
    await zero.until(/closed a connection from 127\.0\.0\.1:\d+: a data frame of unknown element type 200/, 5000)
    expect(job.processes[0].exitCode).toBeNull()
  })

  it('forged hellos that know the job id but not its key are refused at once, and their silence keeps nothing open', async () => {
    // As the recipe: the job id alone, racing the real rank 2 (stopped).
    const bare = await stranger(port, textFrame(Kind.Hello, { rank: 2, job: jobId }))
    // Well formed, with a guessed proof.
    const hex = (n: number) => 'ab'.repeat(n)
    const guessed = await stranger(port, textFrame(Kind.Hello, { rank: 2, job: jobId, port: 1, nonce: hex(32), proof: hex(32) }))
    await Promise.all([bare.closed, guessed.closed])
    // What the strangers got: the challenge, nothing else.
    expect(bare.received()).toBe(12 + 32)
    await zero.until(/its hello is not \{ rank, job, port, nonce, proof \}/, 5000)
    await zero.until(/its hello as rank 2 does not prove it holds the job's key/, 5000)
  })

  it('a header announcing 0xFFFFFFF0 bytes closes the connection before its bytes are buffered', async () => {
    const before = rssKiB(job.processes[0].pid!)
    const s = await stranger(port, header(0xfffffff0, Kind.Data, 0))
    const chunk = Buffer.alloc(1 << 20, 7)
    let sent = 0
    while (!s.socket.destroyed && sent < 64) {
      if (!s.socket.write(chunk)) await new Promise((r) => setTimeout(r, 10))
      sent++
    }
    await s.closed
    await zero.until(/a frame announcing 4294967280 bytes, more than the 1024 this connection carries before its hello is proved/, 5000)
    expect(rssKiB(job.processes[0].pid!) - before).toBeLessThan(32 * 1024)
  })

  it('500 idle connections and a hello begun then left silent are all closed, none later than the hello deadline', async () => {
    const idle = await Promise.all(Array.from({ length: 500 }, () => stranger(port)))
    // A hello frame announcing 200 bytes, of which 10 come.
    const partial = await stranger(port, Buffer.concat([header(200, Kind.Hello, 0), Buffer.alloc(10)]))
    const times = await Promise.all([...idle, partial].map((s) => s.closed))
    // The bound allows for a busy machine.
    expect(Math.max(...times)).toBeLessThan(HELLO_DEADLINE_MS + 10_000)
    // Those beyond the limit of connections awaiting a hello are closed at once; the others at the deadline.
    expect(times.filter((t) => t >= HELLO_DEADLINE_MS - 500).length).toBeGreaterThan(0)
    expect(times.filter((t) => t < HELLO_DEADLINE_MS - 500).length).toBeGreaterThan(0)
    await zero.until(/connections already await their hello/, 5000)
    await zero.until(/no hello within 5 s of connecting/, 5000)
  }, 30_000)

  it('once rank 2 goes on, the job ends with the reference md5 on every rank', async () => {
    job.processes[2].kill('SIGCONT')
    const exits = await job.exited
    for (const e of exits) expect(envelopeOf(e).results.reference.md5).toBe(MD5_100)
  }, 120_000)
})

describe('a rank that stops answering', () => {
  it('is named by every other rank within --rank-timeout, and every rank exits 1', async () => {
    const job = launch(3, ['--steps', '4000', '--rank-timeout', '3', '--json'])
    const zero = watch(job, 0)
    // Every rank is connected and stepping.
    await zero.until(/simulating/, 90_000)
    job.processes[1].kill('SIGSTOP')
    const stopped = Date.now()
    const others = await Promise.all([0, 2].map((r) => new Promise<number | null>((resolve) => job.processes[r].once('close', (code) => resolve(code)))))
    expect(Date.now() - stopped).toBeLessThan(30_000)
    expect(others).toEqual([1, 1])
    job.processes[1].kill('SIGCONT')
    const exits = await job.exited
    for (const e of exits) {
      expect(e.code, e.stderr).toBe(1)
      expect(e.stderr).toMatch(/rank 1 stopped answering/)
    }
    expect(exits[0].stderr + exits[2].stderr).toMatch(/heard nothing from it for [\d.]+ s, longer than the rank timeout \(3 s; --rank-timeout\)/)
  }, 150_000)
})
