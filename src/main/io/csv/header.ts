// The header line of a CSV file: column names and where the data starts.
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { csvError } from './errors'
import { ioError, openForReading } from '../open-for-reading'
import { nameList, quoteText } from '../quote'
import { Turns } from '../../workers/in-turns'
import { bytes } from './bytes'
import { readField } from './fields'
import { duplicateNameMessage } from '../column-names'
import { sawRead } from '../input-digest'

export interface CsvHeader {
  /** Column names, trimmed (files often put a space after each comma). */
  names: string[]
  /** Byte offset of the first data line. */
  dataStart: number
  /** File size in bytes. */
  bytes: number
}

const BOM = [0xef, 0xbb, 0xbf]
const PROBE = 64 * 1024

const { COMMA } = bytes

const startsWith = (head: Buffer, bytes: number[]) => bytes.every((x, i) => head[i] === x)

/**
 * Why the file's start is not UTF-8 CSV text, or null. UTF-16 and UTF-32 show as byte-order marks
 * or as NUL bytes between ASCII characters; other encodings as invalid UTF-8 in the header line.
 */
export function encodingProblem(head: Buffer, headerLine: Buffer): string | null {
  const resave = 'save it as UTF-8 (e.g. "CSV UTF-8" in a spreadsheet, or iconv -f <encoding> -t UTF-8)'
  if (startsWith(head, [0xff, 0xfe, 0, 0]) || startsWith(head, [0, 0, 0xfe, 0xff])) return `is UTF-32 text (it starts with a UTF-32 byte-order mark); ${resave}`
  if (startsWith(head, [0xff, 0xfe])) return `is UTF-16 text (little-endian, with a byte-order mark); ${resave}`
  if (startsWith(head, [0xfe, 0xff])) return `is UTF-16 text (big-endian, with a byte-order mark); ${resave}`
  const probe = head.subarray(0, 512)
  const nul = probe.indexOf(0)
  if (nul >= 0) {
    // ASCII in UTF-16 is every other byte zero: at odd offsets little-endian, at even ones big-endian.
    const zeros = (parity: number) => probe.filter((b, i) => i % 2 === parity && b === 0).length
    const half = probe.length / 2
    if (zeros(1) > half * 0.8 && zeros(0) < half * 0.2) return `is UTF-16 text (little-endian, without a byte-order mark); ${resave}`
    if (zeros(0) > half * 0.8 && zeros(1) < half * 0.2) return `is UTF-16 text (big-endian, without a byte-order mark); ${resave}`
    return `holds NUL bytes (at byte ${nul}): a binary file, not CSV text`
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(headerLine)
  } catch {
    return `is not UTF-8 text: its header line holds bytes that are not UTF-8 (Latin-1 or Windows-1252?); ${resave}`
  }
  return null
}

/**
 * FNV-1a over a string's UTF-16 code units from a random start, finished by MurmurHash3's mixer:
 * names chosen to collide cannot be made in advance (a header of colliding names would make the
 * table's probes quadratic).
 */
function hashOf(text: string, seed: number): number {
  let h = seed
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/**
 * The header line's names, trimmed, each checked against those before it in one pass: an open
 * hash table of name indexes in a typed array (a Map of millions of strings costs seconds of
 * garbage collection), read in slices of the event loop, so that a server answers meanwhile and a
 * cancel is seen.
 */
async function headerNames(path: string, line: string, signal?: AbortSignal): Promise<string[]> {
  const b = Buffer.from(line + '\n', 'utf8')
  let fields = 1
  for (let at = b.indexOf(COMMA); at >= 0; at = b.indexOf(COMMA, at + 1)) fields++
  const slots = new Int32Array(2 ** Math.ceil(Math.log2(2 * fields + 1))).fill(-1)
  const mask = slots.length - 1
  const seed = (Math.random() * 2 ** 32) >>> 0
  const names: string[] = []
  const turns = new Turns(signal)
  for (let p = 0; ; ) {
    const f = readField(b, p)
    if ('error' in f) throw csvError(path, 1, `header: ${f.error}`)
    const name = f.text.trim()
    let slot = hashOf(name, seed) & mask
    for (; slots[slot] >= 0; slot = (slot + 1) & mask)
      if (names[slots[slot]] === name) throw csvError(path, 1, duplicateNameMessage(slots[slot] + 1, names.length + 1, name))
    slots[slot] = names.length
    names.push(name)
    if (b[f.end] !== COMMA) return names
    p = f.end + 1
    if ((names.length & 4095) === 0) await turns.maybe()
  }
}

/** Header lines longer than this are refused: a file of one huge line is not a table. */
export const MAX_HEADER_BYTES = 16 * 1024 * 1024

export async function readHeader(path: string, signal?: AbortSignal): Promise<CsvHeader> {
  const file = await openForReading(path)
  try {
    const size = (await file.stat()).size
    // Read until the first line feed, keeping the chunks apart and joining them once.
    const chunks: Buffer[] = []
    let read = 0
    let nl = -1
    while (nl < 0 && read < size && read <= MAX_HEADER_BYTES) {
      throwIfAborted(signal)
      const chunk = Buffer.alloc(Math.min(PROBE, size - read))
      const { bytesRead } = await file.read(chunk, 0, chunk.length, read)
      if (bytesRead === 0) break
      sawRead(path, read, chunk.subarray(0, bytesRead))
      const at = chunk.subarray(0, bytesRead).indexOf(10)
      if (at >= 0) nl = read + at
      chunks.push(chunk.subarray(0, bytesRead))
      read += bytesRead
    }
    if (nl > MAX_HEADER_BYTES || (nl < 0 && read > MAX_HEADER_BYTES))
      throw csvError(path, 1, `the header line is longer than ${MAX_HEADER_BYTES} bytes; a header names the columns`)
    const head = Buffer.concat(chunks, read)
    const from = startsWith(head, BOM) ? BOM.length : 0
    if (head.length <= from) throw csvError(path, undefined, 'empty file')
    const lineEnd = nl < 0 ? head.length : nl
    const lineBytes = head.subarray(from, lineEnd > from && head[lineEnd - 1] === 13 ? lineEnd - 1 : lineEnd)
    const encoding = from ? null : encodingProblem(head, lineBytes)
    if (encoding) throw csvError(path, undefined, encoding)
    // Classic Mac files end lines with CR alone: the whole file would read as one header line.
    if (nl < 0 && lineBytes.includes(13)) throw csvError(path, 1, 'lines end with CR alone (classic Mac line endings); convert them to LF or CRLF (e.g. tr \'\\r\' \'\\n\')')
    const line = lineBytes.toString('utf8')
    if (line.trim() === '') throw csvError(path, 1, 'the header line is empty')
    const names = await headerNames(path, line, signal)
    return { names, dataStart: nl < 0 ? head.length : nl + 1, bytes: size }
  } catch (e) {
    if (!(e instanceof ApiError) && e instanceof Error && typeof (e as NodeJS.ErrnoException).errno === 'number') throw ioError(path, e)
    throw e
  } finally {
    await file.close()
  }
}
