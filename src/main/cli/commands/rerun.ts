// `paralab rerun <results.json|report.html>`: makes a recorded run again and says whether its
// results agree; exit 0 only when they do. The run's code loads only when the command runs.
import { basename } from 'node:path'
import { F32_BOUND } from '../../../shared/workloads/agreement'
import { UsageError, writeJson, type Command } from '../../terminal/command'

export const rerunCommand: Command = {
  name: 'rerun',
  summary: 'Run again what a results.json or report records, on the same inputs (their sha256 checked first), and say whether the results agree.',
  usage: 'paralab rerun <results.json|report.html> [--json]',
  help: [
    '  <file>   an envelope (--out DIR/results.json, --json, the dashboard\'s Export JSON) or a report holding one',
    '  --json   print { agree, exact, bounded, differences, machine, inputs, leftOut, envelope } instead of the account',
    'Each input must be the file the envelope names, with the sha256 it records: a file that differs is named and nothing runs.',
    'Parameters that write files (--output, --matrix, checkpoints) are left out. Results must agree bit for bit where the run is',
    `exact (f64 statistics and correlation, shortest paths, the landslide's md5) and within ${F32_BOUND.absolute} + ${F32_BOUND.relative}·|value| in f32 rows;`,
    'times and rates are not compared. Exits 0 when they agree, 1 when they do not or the envelope or an input is wrong.',
  ].join('\n'),
  options: { json: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1) throw new UsageError(`rerun takes one results.json or report, got ${positionals.length ? positionals.join(' ') : 'none'}`)
    const { rerun } = await import('../rerun')
    const r = await rerun(positionals[0])
    const a = r.agreement
    if (values.json) {
      writeJson({ agree: a.agree, exact: a.exact, bounded: a.bounded, differences: a.differences, machine: a.machine, inputs: r.inputs, leftOut: r.leftOut, envelope: r.after })
      return a.agree ? 0 : 1
    }
    const lines = [
      `Re-ran ${r.before.workload} of ${r.before.createdAt} (Paralab ${r.before.paralabVersion}) on ${r.inputs.length} input${r.inputs.length === 1 ? '' : 's'}, each with the sha256 recorded:`,
      ...r.inputs.map((f) => `  ${basename(f.path)}  sha256 ${f.sha256}  ${f.path}`),
      ...(r.leftOut.length ? [`Left out (they write files): ${r.leftOut.join(', ')}`] : []),
      a.machine.length ? `Differs from the first run's machine: ${a.machine.join('; ')}` : 'The same machine, device and build as the first run.',
      a.agree
        ? `The results agree: ${a.exact} values bit for bit${a.bounded ? `, ${a.bounded} f32 values within ${F32_BOUND.absolute} + ${F32_BOUND.relative}·|value|` : ''}; times not compared.`
        : `The results do not agree (${a.differences.length} difference${a.differences.length === 1 ? '' : 's'}; ${a.exact} values the same):`,
      ...a.differences.slice(0, 50).map((d) => `  ${d}`),
      ...(a.differences.length > 50 ? [`  … and ${a.differences.length - 50} more (--json lists them all)`] : []),
    ]
    process.stdout.write(lines.join('\n') + '\n')
    return a.agree ? 0 : 1
  },
}
