// A pivot row's trip between parts (src/main/workloads/paths/gpu/pivot-exchange.ts): real slot files
// in shared memory, three parts' exchanges and the hub wired in one process with every message
// delivered a turn later, as over IPC. A row arrives whole and in place at every other part, a slot
// is written again only once every reader has read it, and a peer's hostile notices fail the reader.
import { afterEach, describe, expect, it } from 'vitest'
import { openSlots, ShmFolder } from '../../src/main/ranks/shm-slots'
import { PIVOT_SLOTS, PivotHub, SlotExchange, type ExchangeMessage } from '../../src/main/workloads/paths/gpu/pivot-exchange'

const folders: ShmFolder[] = []
afterEach(() => {
  for (const f of folders.splice(0)) f.remove()
})

const turn = () => new Promise((r) => setImmediate(r))

/** `parts` exchanges on one pivot file of `rowBytes` slots, and the hub between them. */
function wire(parts: number, rowBytes: number, rounds: number) {
  const folder = ShmFolder.create('paralab-test-')
  folders.push(folder)
  const owner = folder.slots('pivot', { slots: PIVOT_SLOTS, slotBytes: rowBytes })
  const heard: { from: number; m: ExchangeMessage }[] = []
  const delivered: { to: number; m: ExchangeMessage }[] = []
  const rows: number[] = []
  const exchanges: SlotExchange[] = []
  const hub = new PivotHub(
    parts,
    (q, m) => {
      delivered.push({ to: q, m })
      setImmediate(() => exchanges[q].onMessage(m))
    },
    (sequence) => rows.push(sequence),
  )
  for (let i = 0; i < parts; i++) {
    const slots = i === 0 ? owner : openSlots(owner.file, owner.geometry)
    const send = (m: ExchangeMessage) => {
      heard.push({ from: i, m })
      setImmediate(() => hub.onMessage(i, m))
    }
    exchanges.push(new SlotExchange(slots, rounds, send))
  }
  for (const x of exchanges) x.begin()
  return { exchanges, heard, delivered, rows, owner }
}

const rowOf = (bytes: number, k: number) => Uint8Array.from({ length: bytes }, (_, i) => (i * 31 + k * 7 + (i >> 12)) & 0xff)

describe('pivot rows between parts', () => {
  it('a row arrives whole, in place, at every other part, which each say once that they read it', async () => {
    // Several MiB and not a whole number of pages: copied in pieces by the thread pool, the last one short.
    const bytes = 3 * 2 ** 20 + 4 * 13
    const { exchanges, heard, rows } = wire(3, bytes, 5)
    const row = rowOf(bytes, 1)
    const targets = [1, 2].map(() => new Uint8Array(bytes))
    // The readers wait before the owner writes a byte.
    const received = [1, 2].map((q, i) => exchanges[q].receive(0, targets[i]))
    await exchanges[0].publish(0, row)
    await Promise.all(received)
    for (const t of targets) expect(Buffer.from(t).equals(Buffer.from(row))).toBe(true)
    expect(heard.filter((h) => h.m.t === 'row').map((h) => h.m)).toEqual([{ t: 'row', notice: { slot: 0, sequence: 0, length: bytes } }])
    expect(heard.filter((h) => h.m.t === 'read').map((h) => h.from).sort()).toEqual([1, 2])
    await turn()
    expect(rows).toEqual([0])
  })

  it('a slot is written again only once every reader has read its row, over many rounds and a second computation', async () => {
    const bytes = 64 * 1024 + 12
    const rounds = 3 * PIVOT_SLOTS + 1
    const { exchanges, delivered } = wire(3, bytes, rounds)
    for (let computation = 0; computation < 2; computation++) {
      if (computation) for (const x of exchanges) x.begin()
      const got: Uint8Array[][] = [[], []]
      // Reader 2 is slow: it starts each read a few turns late, so the owner runs PIVOT_SLOTS rows ahead and waits.
      const readers = [1, 2].map(async (q, i) => {
        for (let k = 0; k < rounds; k++) {
          if (q === 2) for (let t = 0; t < 5; t++) await turn()
          const target = new Uint8Array(bytes)
          await exchanges[q].receive(k, target)
          got[i].push(target)
        }
      })
      for (let k = 0; k < rounds; k++) await exchanges[0].publish(k, rowOf(bytes, k + computation))
      await Promise.all(readers)
      for (const g of got) g.forEach((t, k) => expect(Buffer.from(t).equals(Buffer.from(rowOf(bytes, k + computation))), `round ${k}`).toBe(true))
    }
    // Sequences go on counting over the computations; each slot freed once, in order, after both reads.
    await turn()
    const frees = delivered.filter((d) => d.to === 0 && d.m.t === 'free').map((d) => (d.m as { sequence: number }).sequence)
    expect(frees).toEqual(Array.from({ length: 2 * rounds }, (_, s) => s))
  })

  it('one part alone: each row frees its slot as soon as it is published', async () => {
    const { exchanges, delivered, rows } = wire(1, 4096, 8)
    for (let k = 0; k < 8; k++) await exchanges[0].publish(k, rowOf(4096, k))
    await turn()
    expect(delivered.map((d) => d.m)).toEqual(Array.from({ length: 8 }, (_, sequence) => ({ t: 'free', sequence })))
    expect(rows).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  })

  it("refuses a peer's notices of the wrong slot, past the file, or of another length than a row", async () => {
    const bytes = 8192
    // A reader alone, its messages to the hub dropped: only what it is told matters here.
    const { owner } = wire(1, bytes, 4)
    const x = new SlotExchange(openSlots(owner.file, owner.geometry), 4, () => {})
    x.begin()
    const row = (slot: number, sequence: number, length: number): ExchangeMessage => ({ t: 'row', notice: { slot, sequence, length } })
    expect(() => x.onMessage(row(2, 1, 8))).toThrow('notice of row 1 in slot 2: it belongs in slot 1')
    expect(() => x.onMessage(row(PIVOT_SLOTS, PIVOT_SLOTS, 8))).toThrow(`notice of slot ${PIVOT_SLOTS}: the file has ${PIVOT_SLOTS} slots`)
    expect(() => x.onMessage(row(1, 1, bytes + 1))).toThrow('a slot holds 8192')
    expect(() => x.onMessage({ t: 'row', notice: { slot: 0, sequence: -4, length: 8 } })).toThrow('whole, non-negative')
    x.onMessage(row(0, 0, 4096))
    await expect(x.receive(0, new Uint8Array(bytes))).rejects.toThrow('row 0 of 4096 bytes; a pivot row here is 8192')
  })

  it('a failure or a cancel ends a reader waiting for its row', async () => {
    const x = wire(2, 8192, 4).exchanges[1]
    const waiting = x.receive(0, new Uint8Array(8192))
    await turn()
    x.fail(new Error('part 0 ended (exit 1)'))
    await expect(waiting).rejects.toThrow('part 0 ended')
    await expect(x.receive(1, new Uint8Array(8192))).rejects.toThrow('part 0 ended')

    const y = wire(2, 8192, 4).exchanges[1]
    const controller = new AbortController()
    const cancelled = y.receive(0, new Uint8Array(8192), controller.signal)
    controller.abort()
    await expect(cancelled).rejects.toThrow('cancelled')
  })
})
