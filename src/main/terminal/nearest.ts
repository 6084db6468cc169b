// The nearest of a few names to a mistyped one, for "did you mean" hints.

/** Edits (insert, delete, replace) from a to b. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]
}

/** The name nearest to `word` when it is within a third of that name's length (at least one edit), else undefined. */
export function nearestName(word: string, names: readonly string[]): string | undefined {
  const best = names.map((n) => ({ n, d: distance(word.toLowerCase(), n) })).sort((a, b) => a.d - b.d)[0]
  return best && best.d <= Math.max(1, Math.floor(best.n.length / 3)) ? best.n : undefined
}
