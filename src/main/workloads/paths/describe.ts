// How shortest-paths results read on a terminal: per graph, its size and checks, the checksum,
// each run's times and speed, the queried path and what was written; then what was skipped.
import { describePlacement, type GpuPlacement } from '../../../shared/gpu-placement'
import { GRAPH_FORMAT_NAMES, type PathsGraphResult, type PathsResult } from '../../../shared/workloads/paths/types'
import { maxOf } from '../../../shared/extent'

const count = (n: number, noun: string, plural = `${noun}s`) => `${n} ${n === 1 ? noun : plural}`
const ms = (v?: number) => (v === undefined ? '' : v.toFixed(v < 10 ? 3 : 1))

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => maxOf(rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd()).join('\n') + '\n'
}

function describeGraph(g: PathsGraphResult): string {
  let out = `\n${g.path}: ${GRAPH_FORMAT_NAMES[g.format]}, ${count(g.vertices, 'vertex', 'vertices')}, ${count(g.edges, 'edge')}`
  out += ` (${count(g.duplicates, 'duplicate')}, ${count(g.selfLoops, 'self-loop')} ignored${g.negativeWeights ? '; negative weights, no negative cycle' : ''}), read in ${ms(g.read_ms)} ms\n`
  const pairs = g.vertices * (g.vertices - 1)
  out += `reachable pairs ${g.reachablePairs} of ${pairs}, checksum (sum of finite distances) ${g.checksum}`
  out += g.minDistance === null ? '\n' : `, distances ${g.minDistance}…${g.maxDistance}\n`
  const gpu = g.runs.some((r) => r.upload_ms !== undefined)
  out +=
    '\n' +
    table([
      ['run', 'compute ms', 'min', 'max', ...(gpu ? ['upload ms', 'readback ms', 'GB/s'] : []), 'G relax/s', 'matches'],
      ...g.runs.map((r) => [
        r.name + (r.threads ? ` (${r.threads} threads)` : ''),
        ms(r.compute_ms),
        ms(r.compute_range_ms[0]),
        ms(r.compute_range_ms[1]),
        ...(gpu ? [ms(r.upload_ms), ms(r.readback_ms), r.bandwidth_GB_per_s === undefined ? '' : r.bandwidth_GB_per_s.toPrecision(3)] : []),
        (r.relaxations_per_s / 1e9).toPrecision(3),
        r.matches ? 'yes' : 'NO',
      ]),
    ])
  for (const r of g.runs) if (r.compile_ms !== undefined) out += `${r.name}: kernels compiled in ${ms(r.compile_ms)} ms, before the timed runs\n`
  for (const r of g.runs)
    if (r.gpus !== undefined)
      out += `${r.name}: ${r.gpus} parts; pivot rows exchanged in ${ms(r.exchange_ms)} ms of the compute time (${ms(r.exchange_round_ms)} ms a round, overlapped with phase 3)${r.gpus_note ? `; ${r.gpus_note}` : ''}\n${r.gpus_requested && r.gpus_observed ? `${describePlacement(r as GpuPlacement, 'part')}\n` : ''}`
  if (g.checkpoints) {
    const c = g.checkpoints
    out += `checkpoints every ${count(c.every, 'round')} in ${c.folder}: ${c.resumed_from ? `resumed from round ${c.resumed_from}` : 'started from the graph'}; ${count(c.written, 'checkpoint')} written`
    out += c.written ? ` (${(c.bytes / 2 ** 20).toFixed(1)} MiB in ${ms(c.write_ms)} ms, apart from the compute time)\n` : '\n'
  }
  if (g.query) {
    const q = g.query
    out += q.path
      ? `\npath ${q.from} → ${q.to}: ${q.path.join(' → ')} (length ${q.length}, ${count(q.path.length - 1, 'edge')})\n`
      : `\npath ${q.from} → ${q.to}: none (${q.to} is unreachable from ${q.from})\n`
  }
  if (g.output) out += `\nwrote ${g.output.path} (${g.output.format}, ${g.output.bytes} bytes${g.output.next ? `; successors in ${g.output.next}` : ''}) in ${ms(g.output.write_ms)} ms\n`
  return out
}

export function describePaths(result: PathsResult): string {
  const skipped = result.skipped.map((s) => `skipped ${s.backend}: ${s.reason}\n`).join('')
  const z = result.zoom
  const zoom = z
    ? `\nzoom: vertices ${z.rows[0]}–${z.rows[1]} × ${z.cols[0]}–${z.cols[1]}, ${z.block > 1 ? `${Math.ceil((z.rows[1] - z.rows[0] + 1) / z.block)} × ${Math.ceil((z.cols[1] - z.cols[0] + 1) / z.block)} cells of ${z.block} × ${z.block} vertices` : 'every pair'} (the heatmap: --out)\n`
    : ''
  return result.graphs.map(describeGraph).join('') + zoom + (skipped && `\n${skipped}`)
}

/** Runs whose results differ from the first run's: the CLI exits 1 on them. */
export function pathsFailures(result: PathsResult): string[] {
  return result.graphs.flatMap((g) => {
    const first = g.runs[0]?.name
    const bad = g.runs.filter((r) => !r.matches)
    return bad.map((r) => `${g.path}: ${r.name} differs from ${first}${g.output ? '' : '; nothing was written'}`)
  })
}
