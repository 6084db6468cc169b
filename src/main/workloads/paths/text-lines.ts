// Lines of a text file with their 1-based numbers, for readers whose errors name the line. The text
// comes in pieces as the file is read: a line may span pieces, and a file may exceed the longest
// string JavaScript holds (about 2^29 characters).
import { ApiError } from '../../../shared/errors'
import type { Graph } from './graph'

/** A text format's reader, fed one line at a time (without its line ending) with its number. */
export interface LineParser {
  line(line: string, n: number): void
  finish(): Graph
}

/** Characters a line may hold: a graph's lines are short, and a file of one huge line is not a graph. */
export const MAX_LINE_CHARS = 1024 * 1024

/** Splits text handed in pieces into lines: one leading BOM dropped, LF or CRLF endings, no empty last line. */
class LineSplitter {
  private rest = ''
  private n = 1
  private started = false

  /** `shown` names the file in the error for a line too long. */
  constructor(
    private readonly onLine: (line: string, n: number) => void,
    private readonly shown: string,
  ) {}

  push(text: string): void {
    if (!this.started && text.length > 0) {
      this.started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    let start = 0
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      const line = this.rest + text.slice(start, end)
      this.rest = ''
      this.onLine(withoutCr(line), this.n++)
      start = end + 1
    }
    this.rest += text.slice(start)
    if (this.rest.length > MAX_LINE_CHARS) throw new ApiError('invalid-input', `${this.shown}:${this.n}: the line is longer than ${MAX_LINE_CHARS} characters; not a graph's line`)
  }

  end(): void {
    const line = withoutCr(this.rest)
    this.rest = ''
    if (line.length > 0) this.onLine(line, this.n++)
  }
}

const withoutCr = (line: string) => (line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line)

/** A whole text already in memory. */
export function parseText(parser: LineParser, text: string, shown: string): Graph {
  const lines = new LineSplitter((line, n) => parser.line(line, n), shown)
  lines.push(text)
  lines.end()
  return parser.finish()
}

/** A file's bytes, handed in pieces, decoded as UTF-8 lines for `parser`; `notUtf8` is the error for bytes that are not. */
export class Utf8LineDecoder {
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true })
  private readonly lines: LineSplitter

  constructor(
    private readonly parser: LineParser,
    private readonly notUtf8: () => ApiError,
    shown: string,
  ) {
    this.lines = new LineSplitter((line, n) => parser.line(line, n), shown)
  }

  /** Bytes in file order; a character split between pieces is completed by the next. */
  push(bytes: Uint8Array): void {
    this.lines.push(this.decode(bytes))
  }

  finish(): Graph {
    this.lines.push(this.decode())
    this.lines.end()
    return this.parser.finish()
  }

  private decode(bytes?: Uint8Array): string {
    try {
      return bytes ? this.utf8.decode(bytes, { stream: true }) : this.utf8.decode()
    } catch {
      throw this.notUtf8()
    }
  }
}


/**
 * Largest |weight| a real-weighted graph takes: a path of any length (V − 1 < 2^31 edges) sums to
 * less than 2^31 · 1e300 < 1.8e308, inside f64, so no sum of the f64 backends becomes infinite.
 */
export const MAX_REAL_WEIGHT = 1e300

/** A decimal number as the text formats write it (C's %g, %e or %f; no hex, no separators, no nan or inf). */
export const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/**
 * A weight field: a finite decimal of magnitude at most MAX_REAL_WEIGHT (−0 read as 0), refused by
 * `bad` naming the text otherwise. Whether the graph keeps the integer path is the EdgeBuilder's call.
 */
export function parseWeight(text: string, bad: (msg: string) => ApiError): number {
  const x = DECIMAL.test(text) ? Number(text) : NaN
  if (Number.isNaN(x)) throw bad(`weight ${quoted(text)} is not a number`)
  if (!(Math.abs(x) <= MAX_REAL_WEIGHT)) throw bad(`weight ${quoted(text)} is beyond ±${MAX_REAL_WEIGHT}, the largest weight taken`)
  return x + 0
}

/** An integer field, or null when the text is not one in ±MAX. */
export function parseInteger(text: string, max = 2 ** 31 - 1): number | null {
  if (!/^[+-]?\d+$/.test(text)) return null
  const n = Number(text)
  return Math.abs(n) <= max ? n : null
}

/**
 * A count field (vertices, rows, arcs) of at least `min`: a value past `max` is refused naming the
 * bound it exceeds, not as if it were not a number.
 */
export function parseCount(text: string, what: string, bad: (msg: string) => ApiError, min = 1, max = 2 ** 31 - 1): number {
  const kind = min > 0 ? 'a positive integer' : 'a non-negative integer'
  if (!/^[+-]?\d+$/.test(text) || Number(text) < min) throw bad(`${what} must be ${kind}, got ${quoted(text)}`)
  if (Number(text) > max) throw bad(`${what} ${text.length > 30 ? quoted(text) : text.replace(/^\+/, '')} exceeds ${max}, the largest accepted`)
  return Number(text)
}

export function quoted(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)
}
