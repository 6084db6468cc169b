// Lines of a text file with their 1-based numbers, for readers whose errors name the line.

/** Calls `fn` with each line (without its line ending) and its number. */
export function forEachLine(text: string, fn: (line: string, n: number) => void): void {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0
  let n = 1
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end < 0) end = text.length
    const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end)
    if (end < text.length || line.length > 0) fn(line, n)
    start = end + 1
    n++
  }
}

/** Largest |weight| accepted from text: any more and two distances could overflow int32. */
export const MAX_ABS_WEIGHT = 2 ** 30 - 1

/** An integer field, or null when the text is not one in ±MAX. */
export function parseInteger(text: string, max = 2 ** 31 - 1): number | null {
  if (!/^[+-]?\d+$/.test(text)) return null
  const n = Number(text)
  return Math.abs(n) <= max ? n : null
}

export function quoted(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)
}
