// Slurm's compressed host lists (`n[1-2,5],gpu03`) as node names: a task of several ranks runs on
// every node of its list, and its account names them all, not only the one rank 0 ran on.

/** `n[1-3,07-08],m` as [n1, n2, n3, n07, n08, m]; a list with nothing to expand is split at commas. */
export function expandHostlist(text: string): string[] {
  const out: string[] = []
  // Commas inside brackets separate ranges, outside them hosts.
  for (const host of text.match(/[^,[]+(?:\[[^\]]*\][^,[]*)*/g) ?? []) {
    const m = /^([^[]*)\[([^\]]*)\](.*)$/.exec(host)
    if (!m) {
      if (host.trim()) out.push(host.trim())
      continue
    }
    const [, prefix, ranges, rest] = m
    for (const range of ranges.split(',')) {
      const [a, b = a] = range.split('-')
      const [from, to] = [Number(a), Number(b)]
      // Zero-padded ranges keep their width (n[07-08]); a malformed one is kept as written.
      if (!Number.isInteger(from) || !Number.isInteger(to) || to < from || to - from > 100_000) {
        out.push(`${prefix}${range}${rest}`)
        continue
      }
      for (let i = from; i <= to; i++) out.push(...expandHostlist(`${prefix}${String(i).padStart(a.length, '0')}${rest}`))
    }
  }
  return out
}
