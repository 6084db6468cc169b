// Whether a run made again agrees with the run an envelope records: every result table cell by cell,
// numbers bit for bit where the run is exact (f64 statistics and correlation, shortest paths, the
// landslide's md5) and within F32_BOUND in rows computed in f32; what was measured rather than
// computed (times, rates, threads, the GPUs seen) is not compared but its machine is named.
import { isWorkloadId, workload } from './index'
import type { ResultEnvelope } from './envelope'
import type { ResultTable } from './definition'
import { columnUnit } from './column-units'

/** Two f32 results agree when |a − b| ≤ absolute + relative · max(|a|, |b|). */
export const F32_BOUND = { relative: 1e-3, absolute: 1e-6 } as const

/** Columns that say how the run went on this machine, not what it computed. */
const MEASURED = new Set(['threads', 'gpus', 'gpus_observed', 'speedup_vs_serial', 'output'])
/** Columns that say how far an f32 run is from f64: a property of the device's rounding, not a result. */
const DEVIATION = new Set(['max_abs_dr', 'deviation', 'max_abs_dh', 'mass_error', 'cells_over_1mm'])
/** Columns whose cells name a row (for messages). */
const KEYS = ['run', 'file', 'backend', 'variant', 'stage', 'column', 'prefix_rows', 'precision', 'arithmetic', 'rank', 'name', 'step', 'sample', 'from', 'to', 'series']

export interface Agreement {
  agree: boolean
  /** Cells compared bit for bit, and within F32_BOUND. */
  exact: number
  bounded: number
  /** Each disagreement, naming the table, the row and the column. */
  differences: string[]
  /** What differs between the two runs' machines and builds (not a disagreement). */
  machine: string[]
}

/** Whether a column holds what was measured (times, rates) rather than computed. */
export function isMeasured(column: string): boolean {
  const unit = columnUnit(column)
  return MEASURED.has(column) || unit === 'ms' || (unit?.endsWith('/s') ?? false)
}

/**
 * `before` is the envelope read back, `after` the run made again; `sameName` maps a file as the
 * first run named it to the path the second read it by.
 */
export function agreement(before: ResultEnvelope, after: ResultEnvelope, sameName: ReadonlyMap<string, string> = new Map()): Agreement {
  const differences: string[] = []
  let exact = 0
  let bounded = 0
  if (!isWorkloadId(after.workload)) throw new RangeError(`unknown workload ${after.workload}`)
  const def = workload(after.workload)
  const tablesOf = (env: ResultEnvelope, what: string): ResultTable[] => {
    try {
      return def.tables(env.results as never)
    } catch (e) {
      differences.push(`results: ${what} holds no ${def.id} results (${e instanceof Error ? e.message : String(e)})`)
      return []
    }
  }
  const was = tablesOf(before, 'the envelope')
  const now = tablesOf(after, 'the run made again')
  for (const t of now) {
    const old = was.find((w) => w.name === t.name)
    if (!old) {
      if (was.length) differences.push(`table ${t.name}: the run made again has it, the envelope does not`)
      continue
    }
    if (old.columns.join('\u0000') !== t.columns.join('\u0000')) {
      differences.push(`table ${t.name}: columns ${old.columns.join(',')} in the envelope, ${t.columns.join(',')} now`)
      continue
    }
    if (old.rows.length !== t.rows.length) {
      // Which rows: a backend that could not run here (no GPU) is named, not only counted.
      const keys = (rows: ResultTable['rows']) => rows.map((row) => rowKey(t.columns, row))
      const [then, now_] = [keys(old.rows), keys(t.rows)]
      const gone = then.filter((k) => !now_.includes(k))
      const added = now_.filter((k) => !then.includes(k))
      differences.push(
        `table ${t.name}: ${old.rows.length} rows in the envelope, ${t.rows.length} now${gone.length ? `; not made again: ${gone.slice(0, 5).join('; ')}` : ''}${added.length ? `; new: ${added.slice(0, 5).join('; ')}` : ''}`,
      )
      continue
    }
    const f32At = t.columns.findIndex((c) => c === 'precision' || c === 'arithmetic')
    for (let r = 0; r < t.rows.length; r++) {
      const a = old.rows[r]
      const b = t.rows[r]
      const f32 = f32At >= 0 && b[f32At] === 'f32'
      t.columns.forEach((column, c) => {
        if (isMeasured(column) || (f32 && DEVIATION.has(column))) return
        const x = typeof a[c] === 'string' ? (sameName.get(a[c] as string) ?? a[c]) : a[c]
        const y = b[c]
        const within = f32 && typeof x === 'number' && typeof y === 'number' && Math.abs(x - y) <= F32_BOUND.absolute + F32_BOUND.relative * Math.max(Math.abs(x), Math.abs(y))
        if (Object.is(x, y) || (x === null && y === undefined)) exact++
        else if (within) bounded++
        else
          differences.push(
            `table ${t.name}, row ${r + 1} (${rowKey(t.columns, b)}), column ${column}: ${show(a[c])} in the envelope, ${show(y)} now${f32 ? ` (beyond the f32 bound ${F32_BOUND.absolute} + ${F32_BOUND.relative}·|value|)` : ' (an exact result: bit for bit)'}`,
          )
      })
    }
  }
  for (const w of was) if (!now.some((t) => t.name === w.name)) differences.push(`table ${w.name}: the envelope has it, the run made again does not`)
  return { agree: differences.length === 0, exact, bounded, differences, machine: machineDifferences(before, after) }
}

function rowKey(columns: string[], row: ResultTable['rows'][number]): string {
  const parts = KEYS.flatMap((k) => {
    const at = columns.indexOf(k)
    return at >= 0 && row[at] !== null && row[at] !== undefined ? [`${k} ${String(row[at])}`] : []
  })
  return parts.length ? parts.join(', ') : 'no key columns'
}

const show = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v) ?? 'nothing')

/** The machine, device and build of each run where they differ. */
function machineDifferences(before: ResultEnvelope, after: ResultEnvelope): string[] {
  const pairs: [string, unknown, unknown][] = [
    ['Paralab', before.paralabVersion, after.paralabVersion],
    ['CPU', before.host?.cpu, after.host?.cpu],
    ['cores', before.host?.cores, after.host?.cores],
    ['OS', before.host?.os, after.host?.os],
    ['Node.js', before.host?.node, after.host?.node],
    ['GPU', before.device?.adapter ?? 'none', after.device?.adapter ?? 'none'],
    ['GPU backend', before.device?.backend ?? 'none', after.device?.backend ?? 'none'],
  ]
  return pairs.filter(([, a, b]) => a !== b).map(([what, a, b]) => `${what}: ${String(a)} then, ${String(b)} now`)
}
