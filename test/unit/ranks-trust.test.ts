// What a rank trusts before it talks: the job's key (from its environment, or its folder's
// ranks.key: this user's, mode 0600, a regular file, never through a link), a rendezvous file
// signed with that key, and a peer that proves the key both ways. Real files and real sockets; the
// impostors are in-process servers.
import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ranksKey, RANKS_KEY_FILE, RANKS_KEY_VARIABLE, writeRanksKey } from '../../src/main/ranks/job-key'
import { proofOf } from '../../src/main/ranks/handshake'
import { Ranks } from '../../src/main/ranks/ranks'
import { publishRendezvous, rendezvousPath } from '../../src/main/ranks/rendezvous'
import { FrameReader, Kind, frame, type Frame } from '../../src/main/ranks/wire'

const folders: string[] = []
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'paralab-ranks-trust-'))
  folders.push(d)
  return d
}
afterAll(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })))

const placement = (dir: string, rank = 1) => ({ rank, size: 2, job: 'trust-1', folder: dir })

describe('the job key', () => {
  it('is written fresh with mode 0600, never through a planted link, and read back only when it is this user\'s alone', async () => {
    const dir = folder()
    const victim = join(folder(), 'victim')
    writeFileSync(victim, 'keep me')
    symlinkSync(victim, join(dir, RANKS_KEY_FILE))
    await writeRanksKey(dir)
    expect(readFileSync(victim, 'utf8')).toBe('keep me')
    const path = join(dir, RANKS_KEY_FILE)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const key = await ranksKey(placement(dir), {})
    expect(key).toHaveLength(32)
    expect(readFileSync(path, 'utf8').trim()).toBe(key.toString('hex'))
    // A second job in the same folder gets a key of its own.
    await writeRanksKey(dir)
    expect((await ranksKey(placement(dir), {})).equals(key)).toBe(false)

    chmodSync(path, 0o640)
    await expect(ranksKey(placement(dir), {})).rejects.toThrow(/ranks\.key is a secret, and its mode 640 lets others read or write it: it must be this user's, with mode 600/)
    chmodSync(path, 0o600)
    // Another user's file, even with mode 0600, is not this job's key.
    if (process.getuid?.() === 0) {
      chownSync(path, 65534, 65534)
      await expect(ranksKey(placement(dir), {})).rejects.toThrow(/ranks\.key is a secret, and it belongs to user 65534, not to this user/)
      chownSync(path, 0, 0)
    }
    writeFileSync(path, 'not hex\n')
    await expect(ranksKey(placement(dir), {})).rejects.toThrow(/must hold 32 bytes as hex/)
  })

  it('refuses a key file that is missing, a link, a FIFO or too long, naming the file; the environment\'s key comes first', async () => {
    const dir = folder()
    await expect(ranksKey(placement(dir), {})).rejects.toThrow(new RegExp(`rank 1: .*${RANKS_KEY_VARIABLE} or ${dir}/ranks.key holds, and ${dir}/ranks.key does not exist`))
    const other = folder()
    await writeRanksKey(other)
    symlinkSync(join(other, RANKS_KEY_FILE), join(dir, RANKS_KEY_FILE))
    await expect(ranksKey(placement(dir), {})).rejects.toThrow(/is a symbolic link/)
    rmSync(join(dir, RANKS_KEY_FILE))
    execFileSync('mkfifo', ['-m', '600', join(dir, RANKS_KEY_FILE)])
    await expect(ranksKey(placement(dir), {})).rejects.toThrow(/is a named pipe \(FIFO\)/)
    rmSync(join(dir, RANKS_KEY_FILE))
    writeFileSync(join(dir, RANKS_KEY_FILE), 'a'.repeat(4096), { mode: 0o600 })
    await expect(ranksKey(placement(dir), {})).rejects.toThrow(/holds 4096 bytes, more than the 128/)
    const given = randomBytes(32)
    expect((await ranksKey(placement(dir), { [RANKS_KEY_VARIABLE]: given.toString('hex') })).equals(given)).toBe(true)
    await expect(ranksKey(placement(dir), { [RANKS_KEY_VARIABLE]: 'abc' })).rejects.toThrow(`${RANKS_KEY_VARIABLE} must hold 32 bytes as hex`)
  })
})

/** An in-process listener posing as rank 0: what it received, as frames. */
async function impostor(answer: (socket: Socket, f: Frame) => void): Promise<{ server: Server; port: number; got: Frame[] }> {
  const got: Frame[] = []
  const server = createServer((socket) => {
    socket.on('error', () => {})
    socket.write(frame(Kind.Challenge, 0, randomBytes(32)))
    const reader = new FrameReader(
      (f) => {
        got.push(f)
        answer(socket, f)
      },
      () => socket.destroy(),
    )
    reader.maxBytes = 1 << 20
    socket.on('data', (b) => reader.push(b))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return { server, port: (server.address() as { port: number }).port, got }
}

describe('who a rank believes', () => {
  it('ignores a rendezvous file not signed with the job\'s key (it names the job, and a stranger\'s port)', async () => {
    const dir = folder()
    const key = randomBytes(32)
    await publishRendezvous(placement(dir, 0), randomBytes(32), '127.0.0.1', 9)
    expect(Object.keys(JSON.parse(readFileSync(rendezvousPath(dir), 'utf8')))).not.toContain('key')
    await expect(Ranks.connect(placement(dir), { timeoutMs: 1000, key })).rejects.toThrow(/rank 0's address did not appear in .*ranks-rank0\.json \(it is not signed with this job's key\)/)
  })

  it('sends nothing but its hello to a listener that cannot prove the key, and names it', async () => {
    const dir = folder()
    const key = randomBytes(32)
    // The rendezvous is genuine (signed); the listener at its address is not rank 0: it answers with a made-up welcome and a table.
    const fake = await impostor((socket, f) => {
      if (f.kind === Kind.Hello) {
        socket.write(frame(Kind.Welcome, 0, randomBytes(32)))
        socket.write(frame(Kind.Table, 0, new TextEncoder().encode(JSON.stringify({ hosts: ['', '127.0.0.1'], ports: [1, 2] }))))
      }
    })
    try {
      await publishRendezvous(placement(dir, 0), key, '127.0.0.1', fake.port)
      await expect(Ranks.connect(placement(dir), { timeoutMs: 1500, key })).rejects.toThrow(`rank 1: cannot reach rank 0 at 127.0.0.1:${fake.port}: it is not rank 0 of this job (it does not prove it holds the job's key)`)
      expect(fake.got.length).toBeGreaterThan(0)
      expect(fake.got.every((f) => f.kind === Kind.Hello)).toBe(true)
      // Its hello carries a proof, never the key.
      const hello = JSON.parse(new TextDecoder().decode(fake.got[0].data))
      expect(Object.keys(hello).sort()).toEqual(['job', 'nonce', 'port', 'proof', 'rank'])
      expect(JSON.stringify(hello)).not.toContain(key.toString('hex'))
    } finally {
      fake.server.close()
    }
  })

  it('a proof is bound to its role, job and ranks', () => {
    const key = randomBytes(32)
    const n = [randomBytes(32), randomBytes(32)]
    const base = proofOf(key, 'dialer', 'j', 1, 0, ...n)
    expect(proofOf(key, 'acceptor', 'j', 1, 0, ...n).equals(base)).toBe(false)
    expect(proofOf(key, 'dialer', 'j2', 1, 0, ...n).equals(base)).toBe(false)
    expect(proofOf(key, 'dialer', 'j', 0, 1, ...n).equals(base)).toBe(false)
    expect(proofOf(randomBytes(32), 'dialer', 'j', 1, 0, ...n).equals(base)).toBe(false)
    expect(proofOf(key, 'dialer', 'j', 1, 0, ...n).equals(base)).toBe(true)
  })
})
