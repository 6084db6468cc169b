// Halos between neighbouring ranks (src/main/ranks/neighbour-halos.ts): ranks of one host (here
// two or three in this process, meeting over real loopback TCP, with real files under /dev/shm)
// pass their halos through shared memory, every rank's folder gone once they are set up;
// PARALAB_RANKS_HALOS=tcp keeps them on TCP; an offer of a file that is not a halo file of ours is
// answered with TCP; a notice naming another slot, sequence or length fails the run naming the rank.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { HALOS_VARIABLE, NeighbourHalos, plausibleHaloFile } from '../../src/main/ranks/neighbour-halos'
import { Ranks } from '../../src/main/ranks/ranks'

const TAGS = { setup: 3, notice: 4, data: 1 }
const folders: string[] = []
afterAll(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })))

/** `size` connected ranks in this process. */
async function connected(size: number): Promise<Ranks[]> {
  const folder = mkdtempSync(join(tmpdir(), 'paralab-halos-test-'))
  folders.push(folder)
  const key = randomBytes(32)
  return Promise.all(Array.from({ length: size }, (_, rank) => Ranks.connect({ rank, size, job: `halos-${folders.length}`, folder }, { key, host: '127.0.0.1', timeoutMs: 20_000 })))
}

const neighbours = (r: Ranks) => [r.previous, r.next].filter((n) => n !== undefined)
const open = (all: Ranks[], bytes: number, env: NodeJS.ProcessEnv = {}) => Promise.all(all.map((r) => NeighbourHalos.open(r, neighbours(r), bytes, TAGS, env)))
const closeAll = async (all: Ranks[], halos: NeighbourHalos[]) => {
  halos.forEach((h) => h.close())
  await Promise.all(all.map((r) => r.close()))
}

describe('halos between neighbouring ranks', () => {
  it('ranks of one host pass halos through shared memory, in turn for many messages, their folders gone once set up', async () => {
    const all = await connected(3)
    const halos = await open(all, 24)
    try {
      expect(halos.map((h) => h.by)).toEqual(['shared memory', 'shared memory', 'shared memory'])
      for (const h of halos) {
        expect(h.folder).toMatch(new RegExp(`^/dev/shm/paralab-halos-p${process.pid}(n\\d+)?-`))
        expect(existsSync(h.folder!)).toBe(false)
      }
      for (let m = 0; m < 5; m++) {
        // Every rank sends its rank and the message's number to each neighbour, then reads theirs.
        halos.forEach((h, r) => neighbours(all[r]).forEach((n) => h.send(n, new Float64Array([r, m, n]))))
        for (const [r, h] of halos.entries())
          for (const n of neighbours(all[r])) expect([...(await h.recv(n, Float64Array))]).toEqual([n, m, r])
      }
    } finally {
      await closeAll(all, halos)
    }
  })

  it(`${HALOS_VARIABLE}=tcp keeps the halos on the TCP links`, async () => {
    const all = await connected(2)
    const halos = await open(all, 8, { [HALOS_VARIABLE]: 'tcp' })
    try {
      expect(halos.map((h) => [h.by, h.folder])).toEqual([['tcp', undefined], ['tcp', undefined]])
      halos[0].send(1, new Float64Array([7]))
      expect([...(await halos[1].recv(0, Float64Array))]).toEqual([7])
    } finally {
      await closeAll(all, halos)
    }
  })

  it('a halo file must lie in a folder of ours directly under /dev/shm or the temporary folder', () => {
    expect(plausibleHaloFile('/dev/shm/paralab-halos-12-abc/to-1')).toBe(true)
    expect(plausibleHaloFile(join(tmpdir(), 'paralab-halos-12-abc', 'to-0'))).toBe(true)
    for (const bad of ['/etc/passwd', '/dev/shm/other/to-1', '/dev/shm/paralab-halos-1/../x/to-1', '/dev/shm/paralab-halos-1/sub/to-1', '/dev/shm/paralab-halos-1/rows', 'to-1', '/home/u/paralab-halos-1/to-1'])
      expect(plausibleHaloFile(bad)).toBe(false)
  })

  it('a neighbour offering another file (outside our folders, or of the wrong size) gets TCP, and the halos still arrive', async () => {
    const all = await connected(2)
    const dir = mkdtempSync(join(tmpdir(), 'paralab-halos-'))
    folders.push(dir)
    writeFileSync(join(dir, 'to-0'), Buffer.alloc(5))
    // Rank 1 plays its part by hand: offers /etc/passwd, then a file of ours of the wrong size.
    const hostile = async (file: string) => {
      all[1].send(0, TAGS.setup, new TextEncoder().encode(JSON.stringify({ host: (await import('node:os')).hostname(), file })))
      await all[1].recv(0, TAGS.setup, Uint8Array)
      all[1].send(0, TAGS.setup, new Uint8Array([0]))
      const answer = await all[1].recv(0, TAGS.setup, Uint8Array)
      return answer[0]
    }
    for (const file of ['/etc/passwd', join(dir, 'to-0')]) {
      const [h0, answered] = await Promise.all([NeighbourHalos.open(all[0], [1], 8, TAGS, {}), hostile(file)])
      // Rank 0 offered its file; rank 1 declined it: both directions on TCP.
      expect(answered).toBe(0)
      expect(h0.by).toBe('tcp')
      all[1].send(0, TAGS.data, new Float64Array([3]))
      expect([...(await h0.recv(1, Float64Array))]).toEqual([3])
      h0.close()
    }
    await Promise.all(all.map((r) => r.close()))
  })

  it.each([
    ['a slot outside the file', [5, 0, 16], /rank 1 sent a halo notice that was refused: notice of slot 5: the file has 2 slots/],
    ['a wrong length', [0, 0, 8], /rank 1 sent a halo notice that was refused: expected message 0 in slot 0 of 16 bytes, got message 0 in slot 0 of 8 bytes/],
    ['a length past the slot', [1, 1, 1e9], /rank 1 sent a halo notice that was refused: notice of 1000000000 bytes in slot 1: a slot holds 16/],
    ['a sequence out of turn', [1, 1, 16], /rank 1 sent a halo notice that was refused: expected message 0 in slot 0 of 16 bytes, got message 1 in slot 1/],
    ['not whole numbers', [0.5, 0, 16], /rank 1 sent a halo notice that was refused: a slot notice needs whole/],
    ['four numbers', [0, 0, 16, 1], /rank 1 sent a halo notice that was refused: a notice holds slot, sequence and length, not 4 numbers/],
  ])('a notice with %s is refused, naming the rank', async (_, words, refusal) => {
    const all = await connected(2)
    const halos = await open(all, 16)
    try {
      expect(halos[0].by).toBe('shared memory')
      all[1].send(0, TAGS.notice, new Float64Array(words))
      await expect(halos[0].recv(1, Float64Array)).rejects.toThrow(refusal)
    } finally {
      await closeAll(all, halos)
    }
  })
})
