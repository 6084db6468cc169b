// The unit of a result table's column, read from its name: tables name their columns by one
// convention (`compute_ms`, `max_thickness_m`, `GB_per_s`, `bytes`), so the Parquet copy of a table
// can say each column's unit in its schema's metadata without a second list that could drift.

/** The unit a column's name carries, or undefined when it has none (counts, ratios, names). */
export function columnUnit(name: string): string | undefined {
  const perSecond = /^(?:.*_)?([A-Za-z]+)_per_s$/.exec(name)
  if (perSecond) return `${perSecond[1]}/s`
  if (/(^|_)ms$/.test(name) || /^ms_/.test(name)) return 'ms'
  if (/_m$/.test(name)) return 'm'
  if (/(^|_)bytes$/.test(name)) return 'bytes'
  if (name === 'flop') return 'flop'
  return undefined
}
