// The careful path through CSV fields: quotes, escaped quotes, padding. The parser's hot loop
// handles plain fields itself and comes here only for the unusual ones.
import { bytes } from './bytes'

const { TAB, LF, CR, SPACE, QUOTE, COMMA } = bytes

export type Field = { text: string; end: number } | { error: string }

/**
 * Reads the field starting at `p` on a line that ends with a line feed. `text` is the field's
 * content (unquoted, `""` unescaped, a line's trailing CR removed); `end` is the position of the
 * comma or line break after it. A field is quoted when its first non-blank byte is `"`.
 */
export function readField(b: Buffer, p: number): Field {
  let q = p
  while (b[q] === SPACE || b[q] === TAB) q++
  if (b[q] !== QUOTE) {
    let i = p
    while (b[i] !== COMMA && b[i] !== LF) i++
    const e = b[i] === LF && i > p && b[i - 1] === CR ? i - 1 : i
    return { text: b.toString('utf8', p, e), end: i }
  }
  let text = ''
  let start = q + 1
  let i = start
  for (;;) {
    const c = b[i]
    if (c === LF) return { error: 'quoted field is not closed on its line (line breaks inside quoted fields are not supported)' }
    if (c === QUOTE) {
      text += b.toString('utf8', start, i)
      if (b[i + 1] !== QUOTE) break
      text += '"'
      i += 2
      start = i
    } else i++
  }
  i++
  while (b[i] === SPACE || b[i] === TAB) i++
  if (b[i] === COMMA || b[i] === LF || (b[i] === CR && b[i + 1] === LF)) return { text, end: i }
  return { error: 'unexpected text after the closing quote' }
}

/** Fields on the line starting at `p`, for messages about ragged rows. */
export function countFields(b: Buffer, p: number): number {
  let n = 1
  for (;;) {
    const f = readField(b, p)
    if ('error' in f || b[f.end] !== COMMA) return n
    n++
    p = f.end + 1
  }
}

/** Splits one line of text (no line break) into fields, for the header. */
export function splitLine(line: string): Field[] {
  const b = Buffer.from(line + '\n', 'utf8')
  const out: Field[] = []
  let p = 0
  for (;;) {
    const f = readField(b, p)
    out.push(f)
    if ('error' in f || b[f.end] !== COMMA) return out
    p = f.end + 1
  }
}
