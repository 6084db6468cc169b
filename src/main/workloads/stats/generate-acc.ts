// Synthetic accelerometer files in the layout of the BIG IDEAs wearable dataset:
//   datetime, acc_x, acc_y, acc_z
//   2020-02-13 15:28:50.000000,-38.0,28.0,51.0
// 32 Hz, integer counts in −128…127 written with one decimal. Each axis is a slowly wandering
// gravity component plus sensor noise, with occasional bursts of motion (walking-like
// oscillations) after which the posture shifts. Deterministic for a seed.
import { randomBytes } from 'node:crypto'
import { open, rename, stat, unlink } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { tableFileFormat, writeTableFile } from '../../io/write-table'

export interface GenerateAccOptions {
  rows: number
  seed?: number
  /** Replace an existing file. */
  force?: boolean
  signal?: AbortSignal
  progress?: (p: { rows: number; total: number }) => void
  /** Rows built per write (default 65 536). */
  blockRows?: number
}

export interface GenerateAccResult {
  rows: number
  bytes: number
}

const HEADER = 'datetime, acc_x, acc_y, acc_z\n'
const START = Date.UTC(2020, 1, 13, 15, 28, 50)
const HZ = 32
/** Longest row: `YYYY-MM-DD HH:MM:SS.ffffff` + 3 × `,-128.0` + line feed. */
const MAX_ROW_BYTES = 26 + 3 * 7 + 1
/** Rows are written as whole 32-bit words, the last one reaching up to 7 bytes past the row. */
const WORD_SLACK = 8

export async function generateAccCsv(outPath: string, opts: GenerateAccOptions): Promise<GenerateAccResult> {
  const { rows, signal, progress } = opts
  if (!Number.isInteger(rows) || rows < 1) throw new ApiError('invalid-argument', `rows must be a positive integer, got ${rows}`)
  if (rows > Number.MAX_SAFE_INTEGER) throw new ApiError('invalid-argument', `rows ${rows} exceeds ${Number.MAX_SAFE_INTEGER} (2^53 − 1), the largest accepted`)
  if (tableFileFormat(outPath)) return generateAccTable(outPath, opts)
  const blockRows = Math.max(1, Math.floor(opts.blockRows ?? 65_536))
  throwIfAborted(signal)
  if (!opts.force && (await exists(outPath))) throw new ApiError('invalid-argument', `${outPath} already exists (use --force to overwrite)`)

  // Written beside the target and renamed at the end, so readers never see a partial file.
  const tmpPath = `${outPath}.${randomBytes(4).toString('hex')}.tmp`
  let file
  try {
    file = await open(tmpPath, 'wx')
  } catch (e) {
    throw new ApiError('io', `cannot write ${outPath}: ${(e as Error).message}`)
  }
  let bytes = 0
  try {
    const rowsOut = new AccRows(opts.seed ?? 1)
    // Two buffers: one is filled while the other is being written.
    const buffers = [0, 1].map(() => Buffer.allocUnsafe(blockRows * MAX_ROW_BYTES + WORD_SLACK))
    const views = buffers.map((b) => new DataView(b.buffer, b.byteOffset, b.byteLength))
    const header = Buffer.from(HEADER, 'latin1')
    await file.write(header)
    bytes += header.length
    let writing: Promise<unknown> = Promise.resolve()
    for (let done = 0, turn = 0; done < rows; turn ^= 1) {
      const n = Math.min(blockRows, rows - done)
      const length = rowsOut.fill(views[turn], n)
      await writing
      throwIfAborted(signal)
      writing = file.write(buffers[turn], 0, length)
      bytes += length
      done += n
      progress?.({ rows: done, total: rows })
    }
    await writing
    await file.close()
    file = undefined
    throwIfAborted(signal)
    await rename(tmpPath, outPath)
    return { rows, bytes }
  } catch (e) {
    await file?.close().catch(() => {})
    await unlink(tmpPath).catch(() => {})
    if (e instanceof ApiError) throw e
    throw new ApiError('io', `cannot write ${outPath}: ${(e as Error).message}`)
  }
}

/** Rows per row group (Parquet) or record batch (Arrow). */
const TABLE_BLOCK_ROWS = 1 << 20

/**
 * The same rows as a Parquet or Arrow table (by the output's extension): datetime as microsecond
 * timestamps, the counts as doubles, read back from the CSV text the generator makes, so that
 * both files hold the same values.
 */
async function generateAccTable(outPath: string, opts: GenerateAccOptions): Promise<GenerateAccResult> {
  const { rows } = opts
  const blockRows = Math.max(1, Math.floor(opts.blockRows ?? TABLE_BLOCK_ROWS))
  function* blocks(): Generator<Float64Array[]> {
    const source = new AccRows(opts.seed ?? 1)
    const text = Buffer.allocUnsafe(blockRows * MAX_ROW_BYTES + WORD_SLACK)
    const view = new DataView(text.buffer, text.byteOffset, text.byteLength)
    for (let done = 0; done < rows; ) {
      const n = Math.min(blockRows, rows - done)
      const length = source.fill(view, n)
      const columns = [0, 1, 2, 3].map(() => new Float64Array(n))
      let p = 0
      for (let i = 0; i < n; i++) {
        columns[0][i] = START * 1000 + Math.round(((done + i) * 1_000_000) / HZ)
        p += 26 // the timestamp
        for (let a = 1; a <= 3; a++) {
          p++ // the comma
          const negative = text[p] === 45
          if (negative) p++
          let v = 0
          while (text[p] !== 46) v = v * 10 + text[p++] - 48
          p += 2 // ".0"
          columns[a][i] = negative ? -v : v
        }
        p++ // the line feed
      }
      if (p !== length) throw new ApiError('internal', 'accelerometer rows were not read back as written')
      done += n
      opts.progress?.({ rows: done, total: rows })
      yield columns
    }
  }
  const columns = ACC_COLUMNS.map((name, c) => ({ name, type: c === 0 ? ('timestamp-micros' as const) : ('double' as const) }))
  const bytes = await writeTableFile(outPath, columns, blocks(), { force: opts.force, signal: opts.signal })
  return { rows, bytes }
}

const ACC_COLUMNS = ['datetime', 'acc_x', 'acc_y', 'acc_z']

// The signal, in counts. Gravity means per axis are near those of the dataset's wrist sensor.
const MEAN = [-30, 10, 45]
/** Gravity wanders (Ornstein–Uhlenbeck, updated each second) with this spread and time constant. */
const WANDER = 10
const THETA = 1 / 300
const WANDER_STEP = WANDER * Math.sqrt(2 * THETA)
const NOISE = 2.5
/** A burst of motion starts about once a minute and lasts 2–20 s; then the posture shifts. */
const BURST_CHANCE = Math.round(2 ** 32 / 60)
const POSTURE_SHIFT = 12

/**
 * Rows of the file, in order. Text is written as whole little-endian 32-bit words, each piece's
 * tail overwritten by the next piece, so a row costs a dozen stores instead of one per byte.
 */
class AccRows {
  private readonly random: Mulberry32
  /** Standard normal draws, looked up by 12 random bits: cheap, small enough to stay in cache. */
  private readonly normals = new Float64Array(4096)
  private readonly gravity = Float64Array.from(MEAN)
  private readonly amplitude = new Float64Array(3)
  private readonly phase = new Float64Array(3)
  private burstLeft = 0
  private omega = 0.5
  private shake = 0.5
  private row = 0
  /** `YYYY-MM-DD HH:MM:SS.` of the current second, as five words. */
  private readonly stamp = new Uint32Array(5)
  private secondOfMinute = 60

  constructor(seed: number) {
    this.random = new Mulberry32(seed | 0)
    for (let i = 0; i < this.normals.length; i += 2) {
      const u = (this.random.next() + 1) / 2 ** 32
      const v = this.random.next() / 2 ** 32
      const r = Math.sqrt(-2 * Math.log(u))
      this.normals[i] = r * Math.cos(2 * Math.PI * v)
      this.normals[i + 1] = r * Math.sin(2 * Math.PI * v)
    }
  }

  /** Writes the next `n` rows into `out` (which has WORD_SLACK bytes to spare); returns the bytes written. */
  fill(out: DataView, n: number): number {
    const { normals, gravity, amplitude, phase, stamp, random } = this
    let p = 0
    for (let k = 0; k < n; k++) {
      const tick = this.row++ % HZ
      if (tick === 0) this.nextSecond()
      for (let w = 0; w < 5; w++, p += 4) out.setUint32(p, stamp[w], true)
      out.setUint32(p, FRACTION_WORDS[2 * tick], true)
      out.setUint32(p + 4, FRACTION_WORDS[2 * tick + 1], true)
      p += 6

      const burst = this.burstLeft > 0
      for (let a = 0; a < 3; a++) {
        const r = random.next()
        let v = gravity[a] + NOISE * normals[r >>> 20]
        if (burst) v += amplitude[a] * Math.sin(phase[a] + this.omega * this.burstLeft) + this.shake * normals[(r >>> 8) & 4095]
        const c = Math.round(v) + 128
        const i = c < 0 ? 0 : c > 255 ? 255 : c
        out.setUint32(p, COUNT_WORDS[2 * i], true)
        out.setUint32(p + 4, COUNT_WORDS[2 * i + 1], true)
        p += COUNT_LENGTHS[i]
      }
      out.setUint8(p++, 10)
      if (burst && --this.burstLeft === 0) for (let a = 0; a < 3; a++) gravity[a] += POSTURE_SHIFT * normals[random.next() >>> 20]
    }
    return p
  }

  /** Once a second: the clock, the gravity's wander, and maybe a burst of motion. */
  private nextSecond(): void {
    if (++this.secondOfMinute >= 60) {
      const d = new Date(START + Math.floor(this.row / HZ) * 1000)
      const text = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`
      for (let w = 0; w < 4; w++) this.stamp[w] = wordOf(text, 4 * w)
      this.secondOfMinute = d.getUTCSeconds()
    }
    this.stamp[4] = SECOND_WORDS[this.secondOfMinute]

    const { gravity, random, normals } = this
    for (let a = 0; a < 3; a++) gravity[a] += (MEAN[a] - gravity[a]) * THETA + WANDER_STEP * normals[random.next() >>> 20]
    if (this.burstLeft === 0 && random.next() < BURST_CHANCE) {
      this.burstLeft = 2 * HZ + (random.next() % (18 * HZ))
      this.omega = (2 * Math.PI * (1.5 + random.next() / 2 ** 32)) / HZ // 1.5–2.5 Hz, a walking pace
      this.shake = 4 + (8 * random.next()) / 2 ** 32
      for (let a = 0; a < 3; a++) {
        this.amplitude[a] = 5 + (25 * random.next()) / 2 ** 32
        this.phase[a] = (2 * Math.PI * random.next()) / 2 ** 32
      }
    }
  }
}

/** Four characters of `text` from `at` (missing ones as 0) as a little-endian word. */
function wordOf(text: string, at: number): number {
  let w = 0
  for (let i = 3; i >= 0; i--) w = (w << 8) | (text.charCodeAt(at + i) || 0)
  return w >>> 0
}

/** `:SS.` for each second of a minute. */
const SECOND_WORDS = Uint32Array.from({ length: 60 }, (_, s) => wordOf(`:${pad(s)}.`, 0))
/** `ffffff` of each 32 Hz tick (0, 31250, 62500, … µs), as two words. */
const FRACTION_WORDS = Uint32Array.from({ length: 2 * HZ }, (_, i) => wordOf(String((Math.floor(i / 2) * 1_000_000) / HZ).padStart(6, '0'), 4 * (i % 2)))
/** `,-38.0` and friends for every count from −128: their length, and their bytes as two words. */
const COUNT_TEXT = Array.from({ length: 256 }, (_, c) => `,${c - 128}.0`)
const COUNT_LENGTHS = Uint8Array.from(COUNT_TEXT, (t) => t.length)
const COUNT_WORDS = Uint32Array.from({ length: 512 }, (_, i) => wordOf(COUNT_TEXT[i >> 1], 4 * (i & 1)))

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n)
}

/** mulberry32: a small, fast 32-bit generator; the same seed gives the same file everywhere. */
class Mulberry32 {
  constructor(private state: number) {}

  next(): number {
    const a = (this.state = (this.state + 0x6d2b79f5) | 0)
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return (t ^ (t >>> 14)) >>> 0
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}

