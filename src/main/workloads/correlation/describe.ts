// How correlation results read on a terminal: the input, each backend's stage times and accuracy,
// the GPU kernels, constant series, the ranking's top and where the matrix went.
import type { CorrelationResult } from '../../../shared/workloads/correlation/types'
import { STAGES } from '../../../shared/workloads/correlation/types'
import { maxOf } from '../../../shared/extent'
import { flagSummary } from '../../../shared/workloads/correlation/tables'

const num = (v: number | null | undefined, digits = 4) => (v === null || v === undefined || Number.isNaN(v) ? '—' : Number.isInteger(v) ? String(v) : v.toPrecision(digits))
const ms = (v: number | undefined) => (v === undefined ? '' : v < 10 ? v.toFixed(2) : v.toFixed(1))

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => maxOf(rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n') + '\n'
}

export function describeCorrelation(r: CorrelationResult): string {
  const i = r.input
  let out = `\n${i.path}: ${i.series} series × ${i.length} samples (${i.format}, ${i.layout} layout), ${(i.bytes / 1e6).toFixed(1)} MB, loaded in ${i.load_ms.toFixed(0)} ms\n`
  if (i.left_out?.length) out += `left out ${i.left_out.length === 1 ? 'a column' : `${i.left_out.length} columns`} of text: ${i.left_out.join(', ')} (choose the series with --columns)\n`
  if (r.pair) {
    const p = r.pair
    out += `\npair ${p.names[0]} × ${p.names[1]}: r = ${num(p.r, 6)} (${p.x.length} points${p.step > 1 ? `, min and max of every ${p.step} samples` : ''})\n`
  }
  if (r.zoom) {
    const z = r.zoom
    out += `\nzoom: series ${z.rows[0]}–${z.rows[1]} × ${z.cols[0]}–${z.cols[1]}, ${z.block > 1 ? `${z.rowLabels.length} × ${z.colLabels.length} cells of ${z.block} × ${z.block} series` : 'every pair'} (the heatmap: --out)\n`
  }
  if (r.runs.length) {
    out += `\nTime per stage (ms, median of the repeats); max |Δr| against the f64 reference (${r.reference ?? 'none'})\n`
    out += table([
      ['backend', 'arithmetic', ...STAGES, 'total', 'min–max', 'upload', 'download', 'max |Δr|'],
      ...r.runs.map((run) => [
        run.backend,
        run.arithmetic,
        ...STAGES.map((s) => ms(run.stages[s].median)),
        ms(run.total.median),
        `${ms(run.total.min)}–${ms(run.total.max)}`,
        ms(run.upload_ms),
        ms(run.download_ms),
        run.max_abs_dr === 0 ? '0' : num(run.max_abs_dr, 2),
      ]),
    ])
  }
  const variants = r.runs.flatMap((run) => run.variants ?? [])
  if (variants.length) {
    out += '\nGPU kernels (GFLOP/s and GB/s of the stage\'s own arithmetic and compulsory traffic; deviation: means relative, cross max |Δr|)\n'
    out += table([
      ['kernel', 'median ms', 'min–max', 'GFLOP/s', 'GB/s', 'deviation'],
      ...variants.map((v) => [`${v.stage} ${v.variant}`, ms(v.ms.median), `${ms(v.ms.min)}–${ms(v.ms.max)}`, num(v.flop / v.ms.median / 1e6, 3), num(v.bytes / v.ms.median / 1e6, 3), num(v.deviation, 2)]),
    ])
  }
  if (r.sweep) {
    const backends = [...new Set(r.sweep.points.flatMap((p) => Object.keys(p.backends)))]
    out += `\nSweep over ${r.sweep.over === 'series' ? 'the number of series' : 'the series length'} (total ms, median)\n`
    out += table([['series', 'samples', ...backends], ...r.sweep.points.map((p) => [String(p.series), String(p.length), ...backends.map((b) => ms(p.backends[b]))])])
  }
  if (r.constant.length) out += `\nConstant series (r undefined with every other): ${r.constant.slice(0, 20).join(', ')}${r.constant.length > 20 ? `, … (${r.constant.length - 20} more)` : ''}\n`
  if (r.ranking.length) {
    const shown = r.ranking.slice(0, r.top)
    out += `\nRanking of ${r.ranking.length} series, most anomalous first (robust z of mean r): ${flagSummary(r)}\n`
    out += table([
      ['rank', 'series', 'index', 'mean r', 'median r', 'z', 'flagged'],
      ...shown.map((e, k) => [String(k + 1), e.name, String(e.index), num(e.meanR), num(e.medianR), num(e.z, 3), e.flagged ? 'yes' : '']),
    ])
  }
  for (const run of r.runs) if (run.compile_ms !== undefined) out += `\n${run.backend}: kernels compiled in ${run.compile_ms.toFixed(1)} ms, before the timed runs\n`
  if (r.matrix) out += `\nmatrix written to ${r.matrix.path} (${r.matrix.dtype}, ${(r.matrix.bytes / 1e6).toFixed(1)} MB)\n`
  for (const s of r.skipped) out += `\nskipped ${s.backend}: ${s.reason}\n`
  return out
}
