// Columns that the loader's threads fill straight from their ranges, in file order, with no copy
// on the loader's thread. The columns lie side by side in few growable SharedArrayBuffers (each
// column a region of `capacity` values, as many regions to a buffer as its 4 GiB allow: one buffer
// for 40 000 short columns, one or two per column of a gigabyte file), and each chunk slot is one
// buffer for all columns: every range task posts a handful of buffers, whatever the column count
// (cloning one SharedArrayBuffer per column and slot took minutes at 40 000 columns). Memory is
// committed as values arrive (the reservation up front is address space only), so the loader never
// holds a second copy, and the result can be shared with other threads as it is.
//
// Where a range's values go depends on how many values every earlier range had, so ranges are
// placed in file order, by whichever thread can place them, and no thread waits for another:
//  - a thread parses a range into a chunk slot (shared memory lent by the loader) or, when the
//    range before is placed already, straight into the columns;
//  - when the range before is placed, it places its own: publishes its end in each column, then
//    copies its values in (copies of different ranges run in parallel, only publishing is in order);
//  - otherwise it marks the range PARSED and moves on to its next range; the thread that places
//    the range before then places this one too, from its slot, and so on down the chain.
// Only when every slot is taken does a thread parse into its own memory and wait (Atomics.wait)
// for the range before. A range that fails (bad data, an I/O error, a column too long) is
// ABORTED, and so is every range after it once parsed: nothing waits for it, and the loader
// reports the first problem in file order.

/** Bytes of a buffer of columns: the largest multiple of 8 that threads can be handed (column-sizes.ts). */
export const MAX_COLUMN_BYTES = MAX_COLUMN_VALUES * 8

import { MAX_COLUMN_VALUES } from '../column-sizes'

export interface GrowableSharedArrayBuffer extends SharedArrayBuffer {
  readonly maxByteLength: number
  grow(byteLength: number): void
}
export const Growable = SharedArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => GrowableSharedArrayBuffer

/** States of a range. */
export const PENDING = 0
export const PLACED = 1
export const ABORTED = 2
/** Parsed into a slot; waits for the range before to be placed. */
export const PARSED = 3
/** Being placed by one thread. */
export const PLACING = 4

/** The shared state of the columns being loaded; posted to the threads with each range. */
export interface OrderedColumns {
  /** Output columns. */
  columns: number
  /** Values a column holds at most. */
  capacity: number
  /** Columns to a buffer: column c is region c % perBuffer of buffer ⌊c / perBuffer⌋. */
  perBuffer: number
  /** The columns' values, grown as ranges are placed. */
  buffers: GrowableSharedArrayBuffer[]
  /** Int32 per range: its state. */
  state: SharedArrayBuffer
  /** Float64 per range and column: the column's length once the range is placed. */
  ends: SharedArrayBuffer
  /** Float64 per range and column: its values, once parsed. */
  counts: SharedArrayBuffer
  /** Int32 per range: the slot holding its values while PARSED. */
  slotOf: SharedArrayBuffer
  /** Per slot, room for one range's values of every column: column c from value c · slotValues (address space until written). */
  slots: GrowableSharedArrayBuffer[]
  /** Int32 per slot: 0 free, 1 taken. */
  slotTaken: SharedArrayBuffer
  /** Values one slot holds per column. */
  slotValues: number
}

/**
 * Columns of at most `maxValues` values each (capped at what one buffer holds), for `ranges`
 * ranges of at most `rangeValues` values each, with `slotCount` chunk slots.
 */
export function createOrderedColumns(columns: number, ranges: number, maxValues: number, rangeValues = 0, slotCount = 0): OrderedColumns {
  const capacity = Math.min(Math.max(maxValues, 1), MAX_COLUMN_BYTES / 8)
  const perBuffer = Math.max(1, Math.floor(MAX_COLUMN_BYTES / 8 / capacity))
  const bufferCount = Math.ceil(columns / perBuffer)
  const slotBytes = Math.max(rangeValues, 1) * Math.max(columns, 1) * 8
  const n = Math.max(ranges, 1)
  return {
    columns,
    capacity,
    perBuffer,
    buffers: Array.from({ length: bufferCount }, (_, b) => new Growable(0, { maxByteLength: Math.min(perBuffer, columns - b * perBuffer) * capacity * 8 })),
    state: new SharedArrayBuffer(n * 4),
    ends: new SharedArrayBuffer(Math.max(n * columns, 1) * 8),
    counts: new SharedArrayBuffer(Math.max(n * columns, 1) * 8),
    slotOf: new SharedArrayBuffer(n * 4),
    slots: Array.from({ length: slotCount }, () => new Growable(slotBytes, { maxByteLength: slotBytes })),
    slotTaken: new SharedArrayBuffer(Math.max(slotCount, 1) * 4),
    slotValues: rangeValues,
  }
}

/** Values `start`… of column `c`, `length` of them (within what its buffer has grown to). */
export function columnView(oc: OrderedColumns, c: number, start: number, length: number): Float64Array {
  return new Float64Array(oc.buffers[Math.floor(c / oc.perBuffer)], ((c % oc.perBuffer) * oc.capacity + start) * 8, length)
}

/** The loaded columns: `lengths[c]` values of column c. */
export function columnViews(oc: OrderedColumns, lengths: number[]): Float64Array[] {
  return lengths.map((length, c) => columnView(oc, c, 0, length))
}

export function rangeState(oc: OrderedColumns, index: number): number {
  return index < 0 ? PLACED : Atomics.load(new Int32Array(oc.state), index)
}

/** Where range `index`'s values start in each column; range `index − 1` must be placed. */
export function rangeStarts(oc: OrderedColumns, index: number): number[] {
  const columns = oc.columns
  if (index === 0) return new Array<number>(columns).fill(0)
  return Array.from(new Float64Array(oc.ends, (index - 1) * columns * 8, columns))
}

/**
 * Grows the columns to hold `room[c]` values from `starts[c]`. Returns the first column that
 * cannot hold them, or -1. Only the thread placing a range (or parsing it straight into the
 * columns, its place being known) may call it: growth follows the order of the ranges.
 */
export function reserve(oc: OrderedColumns, starts: readonly number[], room: readonly number[]): number {
  for (let c = 0; c < oc.columns; c++) if (starts[c] + room[c] > oc.capacity) return c
  // A buffer grows to the end of the furthest region its columns now reach.
  const want = oc.buffers.map(() => 0)
  for (let c = 0; c < oc.columns; c++) {
    const b = Math.floor(c / oc.perBuffer)
    want[b] = Math.max(want[b], ((c % oc.perBuffer) * oc.capacity + starts[c] + room[c]) * 8)
  }
  oc.buffers.forEach((b, i) => {
    // In steps: each growth changes the process's memory map, which stalls every thread's page
    // faults for a moment. Committed pages take memory only once written.
    if (want[i] > b.byteLength) b.grow(Math.min(b.maxByteLength, Math.max(want[i], b.byteLength + GROW_STEP_BYTES)))
  })
  return -1
}

/** Columns grow by at least this much at a time. */
export const GROW_STEP_BYTES = 64 * 1024 * 1024

/** Takes a free slot, or returns -1 when all are taken. */
export function takeSlot(oc: OrderedColumns): number {
  const taken = new Int32Array(oc.slotTaken)
  for (let s = 0; s < oc.slots.length; s++) if (Atomics.compareExchange(taken, s, 0, 1) === 0) return s
  return -1
}

export function freeSlot(oc: OrderedColumns, slot: number): void {
  Atomics.store(new Int32Array(oc.slotTaken), slot, 0)
}

/** Views of a slot's columns. */
export function slotViews(oc: OrderedColumns, slot: number): Float64Array[] {
  return Array.from({ length: oc.columns }, (_, c) => new Float64Array(oc.slots[slot], c * oc.slotValues * 8, oc.slotValues))
}

/**
 * Range `index` was parsed into `slot` (values `counts`): places it now if the range before is
 * placed, else leaves it PARSED for the thread that places that one. Then places (or aborts)
 * every range after it that is parsed already.
 */
export function parsed(oc: OrderedColumns, index: number, slot: number, counts: readonly number[]): void {
  const columns = oc.columns
  new Float64Array(oc.counts, index * columns * 8, columns).set(counts)
  new Int32Array(oc.slotOf)[index] = slot
  // Whoever sees PARSED (an atomic load) sees the counts and the slot written before it.
  Atomics.store(new Int32Array(oc.state), index, PARSED)
  advance(oc, index)
}

/**
 * Places range `index`, whose values are in `values` (this thread's memory), once the range
 * before is settled, waiting for it if need be (the fallback when every slot is taken).
 */
export function placeWaiting(oc: OrderedColumns, index: number, values: Float64Array[], counts: readonly number[]): void {
  const state = new Int32Array(oc.state)
  for (;;) {
    const before = rangeState(oc, index - 1)
    if (before === PLACED) break
    if (before === ABORTED) {
      abortPending(oc, index)
      return
    }
    Atomics.wait(state, index - 1, before)
  }
  // Nobody else claims a PENDING range.
  Atomics.store(state, index, PLACING)
  place(oc, index, counts, (c, into) => into.set(values[c].subarray(0, counts[c])))
  advance(oc, index + 1)
}

/** Publishes range `index`, parsed straight into the columns from `starts`: it holds `counts` values. */
export function placedInPlace(oc: OrderedColumns, index: number, starts: readonly number[], counts: readonly number[]): void {
  const columns = oc.columns
  new Float64Array(oc.ends, index * columns * 8, columns).set(starts.map((s, c) => s + counts[c]))
  settle(oc, index, PLACED)
  advance(oc, index + 1)
}

/**
 * Marks range `index` as failed if its thread still holds it (PENDING: a fault, an error); it
 * places nothing, and neither does any range after it.
 */
export function abortPending(oc: OrderedColumns, index: number): void {
  const state = new Int32Array(oc.state)
  if (Atomics.compareExchange(state, index, PENDING, ABORTED) !== PENDING) return
  Atomics.notify(state, index)
  advance(oc, index + 1)
}

/**
 * From range `index` on: places each PARSED range whose range before is placed, aborts each
 * PARSED range whose range before failed. Stops at a range that is not parsed yet, or that
 * another thread is placing.
 */
function advance(oc: OrderedColumns, index: number): void {
  const state = new Int32Array(oc.state)
  const slotOf = new Int32Array(oc.slotOf)
  const columns = oc.columns
  for (let i = index; i < state.length; i++) {
    const before = rangeState(oc, i - 1)
    if (before !== PLACED && before !== ABORTED) return
    const next = before === PLACED ? PLACING : ABORTED
    if (Atomics.compareExchange(state, i, PARSED, next) !== PARSED) return
    const slot = slotOf[i]
    if (next === ABORTED) Atomics.notify(state, i)
    else {
      const counts = Array.from(new Float64Array(oc.counts, i * columns * 8, columns))
      const views = slotViews(oc, slot)
      place(oc, i, counts, (c, into) => into.set(views[c].subarray(0, counts[c])))
    }
    freeSlot(oc, slot)
  }
}

/**
 * Places range `index` (PLACING, the range before placed): grows the columns, publishes its end,
 * then copies its values in with `copy`. A column that would outgrow its buffer aborts the range
 * instead, and is noted for the loader (overflowOf).
 */
function place(oc: OrderedColumns, index: number, counts: readonly number[], copy: (c: number, into: Float64Array) => void): void {
  const columns = oc.columns
  const starts = rangeStarts(oc, index)
  const over = reserve(oc, starts, counts)
  if (over >= 0) {
    new Float64Array(oc.counts, index * columns * 8, columns).fill(-1 - over)
    settle(oc, index, ABORTED)
    return
  }
  new Float64Array(oc.ends, index * columns * 8, columns).set(starts.map((s, c) => s + counts[c]))
  settle(oc, index, PLACED)
  for (let c = 0; c < columns; c++) copy(c, columnView(oc, c, starts[c], counts[c]))
}

/** Sets range `index`'s state and wakes a thread waiting on it. */
function settle(oc: OrderedColumns, index: number, value: number): void {
  const state = new Int32Array(oc.state)
  Atomics.store(state, index, value)
  Atomics.notify(state, index)
}

/** For the loader, once every range is settled: the column that could not take range `index`'s values, or -1. */
export function overflowOf(oc: OrderedColumns, index: number): number {
  const columns = oc.columns
  const first = new Float64Array(oc.counts, index * columns * 8, 1)[0]
  return first < 0 ? -1 - first : -1
}
