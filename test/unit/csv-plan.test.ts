// How the CSV loader sizes its ranges and threads: by a memory budget, not by cores alone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadCsv } from '../../src/main/io/csv-loader'
import {
  ABORTED,
  PARSED,
  PENDING,
  PLACED,
  abortPending,
  columnViews,
  createOrderedColumns,
  overflowOf,
  parsed,
  placeWaiting,
  placedInPlace,
  rangeState,
  reserve,
  slotViews,
  takeSlot,
} from '../../src/main/io/csv/ordered-columns'
import { LOADER_THREADS_BUDGET_BYTES, MAX_RANGE_BYTES, MIN_RANGE_BYTES, lineDensity, planLoad } from '../../src/main/io/csv/plan'
import { WORKER_BASE_BYTES, threadsForMemory } from '../../src/main/workers/memory'
import { STATS_THREADS_BUDGET_BYTES, defaultStatsThreads } from '../../src/main/workloads/stats/cpu-engine'

const MiB = 1024 * 1024
/** The accelerometer file: 3 columns loaded of 43-byte rows, 869 MB. */
const ACC = { dataBytes: 869_000_000, valuesPerByte: 3 / 43 }
/** Memory the plan lets the threads hold: their heaps and their chunks. */
const threadMemory = (p: { threads: number; chunkBytes: number }) => p.threads * WORKER_BASE_BYTES + p.chunkBytes

describe('planLoad', () => {
  it('uses long ranges and every core on a few cores', () => {
    const p = planLoad({ ...ACC, threads: 2 })
    expect(p.threads).toBe(2)
    expect(p.rangeBytes).toBe(MAX_RANGE_BYTES)
  })

  it('shortens the ranges in flight as threads grow, keeping their memory within the budget', () => {
    const few = planLoad({ ...ACC, threads: 2 })
    const many = planLoad({ ...ACC, threads: 16 })
    expect(many.threads).toBe(16)
    expect(many.rangeBytes).toBeLessThan(few.rangeBytes)
    expect(many.rangeBytes).toBeGreaterThanOrEqual(MIN_RANGE_BYTES)
    expect(threadMemory(many)).toBeLessThanOrEqual(LOADER_THREADS_BUDGET_BYTES)
  })

  it('starts fewer threads than cores when even the shortest ranges would overrun the budget', () => {
    for (const threads of [64, 128, 1024]) {
      const p = planLoad({ ...ACC, threads })
      expect(p.threads).toBeLessThan(threads)
      expect(threadMemory(p)).toBeLessThanOrEqual(LOADER_THREADS_BUDGET_BYTES)
    }
    // A dense file (one value per 2 bytes) gets fewer threads than a sparse one.
    const dense = planLoad({ dataBytes: ACC.dataBytes, valuesPerByte: 0.5, threads: 64 })
    expect(dense.threads).toBeLessThan(planLoad({ ...ACC, threads: 64 }).threads)
    expect(threadMemory(dense)).toBeLessThanOrEqual(LOADER_THREADS_BUDGET_BYTES)
  })

  it('cuts small files into enough ranges for every thread, and never starts more threads than ranges', () => {
    const p = planLoad({ dataBytes: 9 * MiB, valuesPerByte: 3 / 43, threads: 2 })
    expect(p.threads).toBe(2)
    expect(Math.ceil((9 * MiB) / p.rangeBytes)).toBeGreaterThanOrEqual(4)
    expect(planLoad({ dataBytes: 100, valuesPerByte: 0.03, threads: 16 }).threads).toBe(1)
  })

  it('keeps a range size the caller chose, and the threads asked for', () => {
    expect(planLoad({ ...ACC, threads: 64, rangeBytes: 48 })).toMatchObject({ rangeBytes: 48, threads: 64 })
  })

  it('estimates lines per byte from the start of the data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralab-plan-'))
    try {
      const path = join(dir, 'a.csv')
      writeFileSync(path, 'x,y\n' + '1.5,2\n'.repeat(1000))
      const f = await open(path)
      try {
        expect(await lineDensity(f, 4, 4 + 6000)).toBeCloseTo(1 / 6, 6)
        expect(await lineDensity(f, 4, 4)).toBe(0)
      } finally {
        await f.close()
      }
      // The loader reports what it planned.
      const t = await loadCsv(path, { columns: ['x', 'y'], threads: 64 })
      expect(t.threads).toBe(1)
      expect(t.columns.x.values.length).toBe(1000)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('statistics threads', () => {
  it('follow the cores up to what the memory budget allows', () => {
    expect(defaultStatsThreads(1)).toBe(1)
    expect(defaultStatsThreads(2)).toBe(2)
    const cap = defaultStatsThreads(1024)
    expect(cap).toBeGreaterThan(2)
    expect(defaultStatsThreads(16)).toBe(Math.min(16, cap))
    expect(cap * WORKER_BASE_BYTES).toBeLessThanOrEqual(STATS_THREADS_BUDGET_BYTES)
  })

  it('threadsForMemory gives at least one thread and at most those wanted', () => {
    expect(threadsForMemory(8, 10, 1)).toBe(1)
    expect(threadsForMemory(8, 10, 1000)).toBe(8)
    expect(threadsForMemory(8, 10, 35)).toBe(3)
  })
})

describe('ranges placed in file order by many threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralab-order-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const rows = Array.from({ length: 3000 }, (_, i) => `${i},${i % 7 === 0 ? '' : -i / 4}`)

  it('gives every value in row order, whichever thread finishes first', async () => {
    const path = join(dir, 'ok.csv')
    writeFileSync(path, 'a,b\n' + rows.join('\n') + '\n')
    const t = await loadCsv(path, { columns: ['b', 'a'], threads: 6, rangeBytes: 97, blockBytes: 32 })
    expect(Array.from(t.columns.a.values)).toEqual(rows.map((_, i) => i))
    expect(Array.from(t.columns.b.values)).toEqual(rows.flatMap((_, i) => (i % 7 === 0 ? [] : [-i / 4])))
    expect(t.columns.b.missing).toBe(Math.ceil(3000 / 7))
  })

  it('reports the first bad line in the file while later ranges wait or give up', async () => {
    const bad = [...rows]
    bad[1700] = '1700,x'
    bad[2900] = '2900,y'
    const path = join(dir, 'bad.csv')
    writeFileSync(path, 'a,b\n' + bad.join('\n') + '\n')
    for (let i = 0; i < 3; i++)
      await expect(loadCsv(path, { columns: ['a', 'b'], threads: 6, rangeBytes: 97, blockBytes: 32 })).rejects.toThrow(`${path}:1702:2: column "b": "x" is not a number`)
  })
})

describe('ordered columns', () => {
  it('places a range parsed early once the range before is placed, by the thread placing that one', () => {
    const oc = createOrderedColumns(1, 3, 100, 10, 1)
    const slot = takeSlot(oc)
    expect(slot).toBe(0)
    slotViews(oc, slot)[0].set([5, 6])
    parsed(oc, 1, slot, [2])
    expect(rangeState(oc, 1)).toBe(PARSED)
    expect(takeSlot(oc)).toBe(-1) // the only slot waits with range 1
    // Range 0, parsed straight into the column, places range 1 after it.
    expect(reserve(oc, [0], [3])).toBe(-1)
    new Float64Array(oc.buffers[0], 0, 3).set([1, 2, 3])
    placedInPlace(oc, 0, [0], [3])
    expect(rangeState(oc, 1)).toBe(PLACED)
    expect(takeSlot(oc)).toBe(0)
    // Range 2 from the thread's own memory (no slot free), its turn come.
    placeWaiting(oc, 2, [new Float64Array([9, 0])], [1])
    expect(Array.from(columnViews(oc, [6])[0])).toEqual([1, 2, 3, 5, 6, 9])
  })

  it('aborts the ranges waiting after a range that failed, and frees their slots', () => {
    const oc = createOrderedColumns(2, 3, 100, 10, 2)
    const s1 = takeSlot(oc)
    parsed(oc, 1, s1, [1, 1])
    abortPending(oc, 0)
    expect([0, 1, 2].map((i) => rangeState(oc, i))).toEqual([ABORTED, ABORTED, PENDING])
    expect(takeSlot(oc)).toBe(s1)
  })

  it('notes the column that cannot take a range', () => {
    const oc = createOrderedColumns(2, 2, 4, 10, 1)
    const s = takeSlot(oc)
    parsed(oc, 1, s, [1, 1])
    placedInPlace(oc, 0, [0, 0], [2, 4]) // column 1 is full: range 1 cannot follow
    expect(rangeState(oc, 1)).toBe(ABORTED)
    expect(overflowOf(oc, 1)).toBe(1)
    expect(overflowOf(oc, 0)).toBe(-1)
  })
})
