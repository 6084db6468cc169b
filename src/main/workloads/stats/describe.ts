// How statistics results read on a terminal: per file, the f64 reference and each backend's time
// (median, and with the envelope's timings min and max), results and (for f32) deviation from f64;
// then skipped backends, and with several files a summary with each file's status.
import type { ResultEnvelope } from '../../../shared/workloads/envelope'
import { fileTimings } from '../../../shared/workloads/stats/timings'
import type { StatsFileResult, StatsResult } from '../../../shared/workloads/stats/types'
import { maxOf } from '../../../shared/extent'

/** NaN and ±∞ (a zero mean's CV) as the dashboard writes them. */
const num = (v: number, digits = 6) => (Number.isInteger(v) ? String(v) : Number.isFinite(v) ? v.toPrecision(digits) : Number.isNaN(v) ? 'NaN' : v > 0 ? '∞' : '−∞')
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => maxOf(rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n') + '\n'
}

/** A failed file's error, naming the file once. */
export function failureText(f: StatsResult['failed'][number]): string {
  return f.error.message.includes(f.path) ? f.error.message : `${f.path}: ${f.error.message}`
}

export function describeStats(result: StatsResult, envelope?: ResultEnvelope<StatsResult>): string {
  let out = ''
  for (const f of result.files) {
    const timings = envelope ? fileTimings(result, envelope.timings, f) : {}
    out += `\n${f.path}: ${count(f.rows, 'row')}, ${(f.bytes / 1e6).toFixed(1)} MB, loaded in ${f.load_ms.toFixed(0)} ms\n`
    out += 'Reference (f64, exact; std is the population standard deviation)\n'
    out += table([
      ['column', 'n', 'missing', 'mean', 'std', 'CV', 'median', 'MAD'],
      ...Object.entries(f.columns).map(([c, s]) => [c, String(s.n), String(s.missing), num(s.mean), num(s.std), num(s.cv), num(s.median), num(s.mad)]),
    ])
    const cols = Object.keys(f.columns)
    const runs = Object.entries(f.backends)
    // f32 results are shown with how far they lie from the f64 reference.
    const f32 = runs.some(([, r]) => r.precision === 'f32')
    const dev = (r: (typeof runs)[number][1], c: string) => {
      const d = r.columns[c].deviation
      return d ? [num(d.cv_rel, 3), num(d.median_abs, 3), num(d.mad_abs, 3)] : ['', '', '']
    }
    // The timings' median, min and max are of the same runs: whole columns, summed over them.
    const spread = runs.some(([b]) => timings[b])
    const ms = (v: number | undefined) => (v === undefined ? '' : v.toFixed(2))
    if (spread) out += `\ncompute: whole columns, ${count(Object.values(timings)[0].runs, 'run')} per backend`
    out += '\n' + table([
      ['backend', 'precision', 'compute ms', ...(spread ? ['min ms', 'max ms'] : []), 'upload ms', ...cols.flatMap((c) => [`CV ${c}`, `MAD ${c}`, ...(f32 ? [`ΔCV rel ${c}`, `Δmedian ${c}`, `ΔMAD ${c}`] : [])])],
      ...runs.map(([b, r]) => [
        b,
        r.precision,
        ms(timings[b]?.median ?? r.compute_ms),
        ...(spread ? [ms(timings[b]?.min), ms(timings[b]?.max)] : []),
        ms(r.upload_ms),
        ...cols.flatMap((c) => [num(r.columns[c].cv), num(r.columns[c].mad), ...(f32 ? dev(r, c) : [])]),
      ]),
    ])
    for (const [b, r] of runs) if (r.compile_ms !== undefined) out += `${b}: kernels compiled in ${ms(r.compile_ms)} ms, before the timed runs\n`
    out += prefixesTable(f)
  }
  for (const s of result.skipped) out += `\nskipped ${s.backend}: ${s.reason}\n`
  if (result.files.length + result.failed.length > 1) {
    const cols = [...new Set(result.files.flatMap((f) => Object.keys(f.columns)))]
    const name = (p: string) => p.split(/[\\/]/).pop()!
    out += '\nSummary (f64 reference)\n' + table([
      ['file', 'status', ...cols.flatMap((c) => [`MAD ${c}`, `CV ${c}`])],
      ...result.files.map((f) => [name(f.path), 'ok', ...cols.flatMap((c) => (f.columns[c] ? [num(f.columns[c].mad), num(f.columns[c].cv, 5)] : ['', '']))]),
      ...result.failed.map((f) => [name(f.path), 'failed', ...cols.flatMap(() => ['', ''])]),
    ])
    if (result.failed.length) out += `\n${count(result.failed.length, 'file')} failed:\n${result.failed.map((f) => `  ${failureText(f)}`).join('\n')}\n`
  }
  return out
}

/** `--batches K`: each prefix's time per backend and, from the first backend, how CV and MAD settle as rows grow. */
function prefixesTable(f: StatsFileResult): string {
  if (f.batches.length < 2) return ''
  const backends = Object.keys(f.batches[0].backends)
  const first = backends[0]
  const cols = Object.keys(f.batches[0].backends[first]?.columns ?? {})
  return (
    `\nPrefixes (--batches ${f.batches.length}): compute ms per backend; CV and MAD by ${first}\n` +
    table([
      ['rows', ...backends.map((b) => `${b} ms`), ...cols.flatMap((c) => [`CV ${c}`, `MAD ${c}`])],
      ...f.batches.map((p) => [
        String(p.rows),
        ...backends.map((b) => p.backends[b]?.compute_ms.toFixed(2) ?? ''),
        ...cols.flatMap((c) => {
          const v = p.backends[first]?.columns[c]
          return v ? [num(v.cv), num(v.mad)] : ['', '']
        }),
      ]),
    ])
  )
}
