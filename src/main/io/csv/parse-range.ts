// Parses one byte range of a CSV file (whole lines) into numeric columns. Runs in a worker thread:
// reads the range in blocks into one reused Buffer and parses numbers straight from the bytes, then
// places them in the loader's shared columns in file order (ordered-columns.ts). When the range
// before is already placed, the values go straight into the columns; otherwise into a chunk slot,
// copied in once the range's place is known (by this thread or by the one placing the range before).
import { closeSync, openSync, readSync } from 'node:fs'
import { ApiError } from '../../../shared/errors'
import { bytes } from './bytes'
import { ioError } from '../open-for-reading'
import { quoteText } from '../quote'
import { countFields, readField } from './fields'
import { numberFromText, POW10, TWO_53 } from './number'
import {
  ABORTED,
  Growable,
  type OrderedColumns,
  PLACED,
  abortPending,
  columnView,
  freeSlot,
  parsed,
  placeWaiting,
  placedInPlace,
  rangeStarts,
  rangeState,
  reserve,
  slotViews,
  takeSlot,
} from './ordered-columns'

const { TAB, LF, CR, SPACE, QUOTE, COMMA, MINUS, DOT } = bytes

export interface RangeTask {
  path: string
  /** Offset of the range's first line. */
  start: number
  /** Offset just after its last line: the start of a line, or the end of the file. */
  end: number
  /** Header names; every row must have this many fields. */
  names: string[]
  /** For each field, the output column it goes to, or -1 to skip it. */
  slots: number[]
  /** Read size; lines longer than this grow the buffer. */
  blockBytes: number
  /** The range's number in file order (0 for the first). */
  index: number
  /** Where the values go. */
  columns: OrderedColumns
}

/** A problem on one line of the range; the loader turns it into a message with the file's line number. */
export interface RangeFault {
  /** 1-based line within the range. */
  line: number
  /** 1-based column of the cell at fault, where one cell is. */
  column?: number
  message: string
}

export interface RangeResult {
  /** Data rows (blank lines are not rows). */
  rows: number
  /** Lines, blank ones included: the loader numbers later ranges' lines from these. */
  lines: number
  /** Per output column: values parsed, and empty cells skipped. */
  counts: number[]
  missing: number[]
  fault?: RangeFault
  /** Nothing was parsed or placed: an earlier range failed. */
  skipped?: boolean
}

/** Bytes kept free after the data in a block: the end-of-data line feed and 4-byte reads past it. */
const SLACK = 8

let block: Buffer = Buffer.alloc(0)
/** This thread's chunk memory when no slot is free, one buffer for all columns, reused: pages never written cost nothing. */
let chunk: Float64Array = new Float64Array(new SharedArrayBuffer(0))
let chunks: Float64Array[] = []

/**
 * Room for n values whose pages take memory only once written. A growable SharedArrayBuffer is
 * reserved and committed by V8 itself; a plain ArrayBuffer of this size may come from malloc,
 * which can hand out (and clear) memory that is resident already.
 */
function lazyZeroed(n: number): Float64Array {
  return new Float64Array(new Growable(n * 8, { maxByteLength: n * 8 }))
}

interface ParseState {
  names: string[]
  slots: Int32Array
  cols: Float64Array[]
  counts: number[]
  missing: number[]
  rows: number
  lines: number
  fault?: RangeFault
}

export function parseRange(task: RangeTask): RangeResult {
  try {
    return parseAndPlace(task)
  } finally {
    // A range this thread still holds (a fault, an error) must not hold up the ranges after it.
    abortPending(task.columns, task.index)
  }
}

function parseAndPlace(task: RangeTask): RangeResult {
  const oc = task.columns
  const ncols = oc.columns
  const { index } = task
  if (rangeState(oc, index - 1) === ABORTED) return { rows: 0, lines: 0, counts: [], missing: [], skipped: true }
  // Every row takes at least one byte per field (its commas and line feed), which bounds the rows.
  const maxRows = Math.floor((task.end - task.start) / task.names.length) + 1
  // Where the values go: straight into the columns when this range's place is known already (the
  // range before is placed) and they can take the most it can hold; else a free slot; else this
  // thread's own memory, and then it waits for its turn.
  const starts = rangeState(oc, index - 1) === PLACED ? rangeStarts(oc, index) : null
  const direct = starts !== null && reserve(oc, starts, starts.map(() => maxRows)) < 0
  const slot = direct || maxRows > oc.slotValues ? -1 : takeSlot(oc)
  let cols: Float64Array[]
  if (direct) cols = starts!.map((s, c) => columnView(oc, c, s, maxRows))
  else if (slot >= 0) cols = slotViews(oc, slot)
  else {
    if (chunk.length < ncols * maxRows) chunk = lazyZeroed(ncols * maxRows)
    if (chunks.length !== ncols || chunks[0].length < maxRows) chunks = Array.from({ length: ncols }, (_, c) => chunk.subarray(c * maxRows, (c + 1) * maxRows))
    cols = chunks
  }
  const st: ParseState = {
    names: task.names,
    slots: Int32Array.from(task.slots),
    cols,
    counts: cols.map(() => 0),
    missing: cols.map(() => 0),
    rows: 0,
    lines: 0,
  }
  try {
    readAndParse(task, st)
  } catch (e) {
    if (slot >= 0) freeSlot(oc, slot)
    throw e
  }
  const result: RangeResult = { rows: st.rows, lines: st.lines, counts: st.counts, missing: st.missing, fault: st.fault }
  if (st.fault) {
    if (slot >= 0) freeSlot(oc, slot)
    return result
  }
  if (direct) placedInPlace(oc, index, starts!, st.counts)
  else if (slot >= 0) parsed(oc, index, slot, st.counts)
  else placeWaiting(oc, index, chunks, st.counts)
  return result
}

/** Reads the range block by block and parses its lines into `st`. */
function readAndParse(task: RangeTask, st: ParseState): void {
  if (block.length < task.blockBytes + SLACK) block = Buffer.allocUnsafe(task.blockBytes + SLACK)
  let fd: number
  try {
    fd = openSync(task.path, 'r')
  } catch (e) {
    throw ioError(task.path, e)
  }
  try {
    let pos = task.start
    let carry = 0
    for (;;) {
      // A line longer than the buffer: grow it.
      if (carry >= block.length - SLACK) {
        const bigger = Buffer.allocUnsafe(block.length * 2)
        block.copy(bigger, 0, 0, carry)
        block = bigger
      }
      const want = Math.min(block.length - SLACK - carry, task.end - pos)
      let got = 0
      try {
        got = want > 0 ? readSync(fd, block, carry, want, pos) : 0
      } catch (e) {
        throw ioError(task.path, e)
      }
      if (got === 0 && want > 0) throw new ApiError('io', `cannot read ${task.path}: the file got shorter while it was read`)
      pos += got
      const valid = carry + got
      const last = pos >= task.end
      let stop: number
      if (last) {
        // The file's last line may lack its line feed: add one so every line ends the same way.
        stop = valid
        if (valid > 0 && block[valid - 1] !== LF) block[stop++] = LF
      } else {
        const nl = block.lastIndexOf(LF, valid - 1)
        if (nl < 0) {
          carry = valid
          continue
        }
        stop = nl + 1
      }
      if (!parseLines(block, stop, st) || last) break
      carry = valid - stop
      block.copyWithin(0, stop, valid)
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * Parses the lines in b[0, stop), each ending with a line feed, with SLACK bytes readable after
 * `stop`. Returns false after recording a fault. The hot path touches each byte once and allocates
 * nothing; quoted, padded or unusual fields go through readField and Number().
 */
function parseLines(b: Buffer, stop: number, st: ParseState): boolean {
  const { slots, cols, counts, missing } = st
  const words = new DataView(b.buffer, b.byteOffset, b.byteLength)
  const fields = slots.length
  let rows = st.rows
  let lines = st.lines
  let p = 0
  let ok = true
  scan: while (p < stop) {
    const lineStart = p
    lines++
    let c = b[p]
    if (c === LF) {
      p++
      continue
    }
    if (c === CR && b[p + 1] === LF) {
      p += 2
      continue
    }
    for (let f = 0; ; ) {
      const slot = slots[f]
      if (slot < 0) {
        if (c === QUOTE || c === SPACE || c === TAB) {
          const field = readField(b, p)
          if ('error' in field) {
            ok = fail(st, lines, `column ${quoteText(st.names[f])}: ${field.error}`, f + 1)
            break scan
          }
          p = field.end
        } else {
          // Skip to the next comma or line feed four bytes at a time: x has a zero byte where
          // the word has the byte looked for, and (x − 0x01…) & ~x & 0x80… flags the first one.
          for (;;) {
            const w = words.getUint32(p, true)
            const xc = w ^ 0x2c2c2c2c
            const xl = w ^ 0x0a0a0a0a
            const hit = (((xc - 0x01010101) & ~xc) | ((xl - 0x01010101) & ~xl)) & 0x80808080
            if (hit !== 0) {
              p += (31 - Math.clz32(hit & -hit)) >> 3
              break
            }
            p += 4
          }
        }
        c = b[p]
      } else if (c === COMMA || c === LF || (c === CR && b[p + 1] === LF)) {
        missing[slot]++
      } else {
        // The common case, `[-]digits[.digits]` before a delimiter, is read right here as an
        // integer m and a scale. While m < 2^53 and scale ≤ 22, m and 10^scale are exact doubles,
        // so m / 10^scale is one correctly rounded division: exactly the double Number() gives.
        let q = p
        const negative = c === MINUS
        if (negative) c = b[++q]
        let m = 0
        let digits = 0
        for (let d = c - 48; d >= 0 && d <= 9; d = c - 48) {
          m = m * 10 + d
          digits++
          c = b[++q]
        }
        let scale = 0
        if (c === DOT) {
          c = b[++q]
          for (let d = c - 48; d >= 0 && d <= 9; d = c - 48) {
            m = m * 10 + d
            scale++
            c = b[++q]
          }
        }
        if (digits + scale > 0 && m < TWO_53 && scale <= 22 && (c === COMMA || c === LF || (c === CR && b[q + 1] === LF))) {
          const v = scale === 0 ? m : m / POW10[scale]
          cols[slot][counts[slot]++] = negative ? -v : v
          p = q
        } else {
          p = slowNumber(b, p, st, f, lines)
          if (p < 0) {
            ok = false
            break scan
          }
          c = b[p]
        }
      }
      // c is the delimiter after field f: a comma, a line feed, or a CR before one.
      f++
      if (c === COMMA) {
        if (f === fields) {
          ok = fail(st, lines, `expected ${fields} fields, found ${countFields(b, lineStart)}`)
          break scan
        }
        c = b[++p]
        continue
      }
      if (f !== fields) {
        ok = fail(st, lines, `expected ${fields} fields, found ${f}`)
        break scan
      }
      p += c === CR ? 2 : 1
      rows++
      break
    }
  }
  st.rows = rows
  st.lines = lines
  return ok
}

/**
 * Any other numeric field: quoted, padded, with an exponent or a plus sign, long, empty or wrong.
 * Stores the value or counts it missing; returns the delimiter's position, or -1 after a fault.
 */
function slowNumber(b: Buffer, p: number, st: ParseState, f: number, line: number): number {
  const slot = st.slots[f]
  const field = readField(b, p)
  if ('error' in field) {
    fail(st, line, `column ${quoteText(st.names[f])}: ${field.error}`, f + 1)
    return -1
  }
  if (field.text.trim() === '') {
    st.missing[slot]++
    return field.end
  }
  const v = numberFromText(field.text)
  if (!Number.isFinite(v)) {
    const what = v !== v ? 'is not a number' : 'is out of range'
    fail(st, line, `column ${quoteText(st.names[f])}: ${quoteText(field.text)} ${what}`, f + 1)
    return -1
  }
  st.cols[slot][st.counts[slot]++] = v
  return field.end
}

function fail(st: ParseState, line: number, message: string, column?: number): false {
  st.fault = column === undefined ? { line, message } : { line, column, message }
  return false
}
