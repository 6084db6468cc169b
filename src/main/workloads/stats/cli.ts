import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiError } from '../../../shared/api'
import { PRECISIONS, STATS_BACKENDS, type Precision, type StatsBackend, type StatsParams, type StatsResult } from '../../../shared/workloads/stats/types'
import { intOption, UsageError, writeJson, type Command } from '../../cli/command'
import { runJob } from '../../cli/run-job'
import { writeStatsOutputs } from './stats-outputs'

export const statsCommand: Command = {
  name: 'stats',
  summary: 'Coefficient of variation and median absolute deviation of CSV columns, on CPU and GPU backends.',
  usage: 'paralab stats <file.csv|dir>… [--columns a,b,c] [--backend B] [--precision f64|f32] [--repeat R] [--batches K] [--out DIR] [--force] [--json]',
  help: [
    '  --columns a,b,c  columns to analyse (default: acc_x, acc_y, acc_z, those the file has)',
    `  --backend B      ${STATS_BACKENDS.join(' | ')} | all, or a comma list (default: workers-simd)`,
    '  --precision P    f64 (default, exact) or f32 (data rounded to f32, computed in f32; deviation reported)',
    '  --repeat R       runs per backend; the median computation time is reported (default 10)',
    '  --batches K      also compute on the prefixes n/K, 2n/K, …, n of each column (default 1)',
    '  --out DIR        write the time, CV and MAD charts (SVG and PNG) and results.json, results.csv',
    '  --force          replace files that already exist in --out',
    '  --json           print the results as one JSON object on stdout',
    '',
    'A folder stands for every *.csv in it; several files end with a summary table (file × MAD/CV).',
  ].join('\n'),
  options: {
    columns: { type: 'string' },
    backend: { type: 'string' },
    precision: { type: 'string' },
    repeat: { type: 'string' },
    batches: { type: 'string' },
    out: { type: 'string' },
    force: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length === 0) throw new UsageError('stats needs at least one CSV file or folder')
    const params: StatsParams = {
      files: await expandInputs(positionals),
      columns: values.columns?.split(',').map((c: string) => c.trim()).filter(Boolean),
      backends: parseBackends(values.backend ?? 'workers-simd'),
      precision: parsePrecision(values.precision ?? 'f64'),
      repeat: intOption(values.repeat, 'repeat', 1, 1000) ?? 10,
      batches: intOption(values.batches, 'batches', 1, 10_000) ?? 1,
    }
    const result = await runJob('stats', params)
    // Outputs are rendered in full before the first file is written: nothing half-written.
    if (values.out) await writeStatsOutputs(values.out, result, { force: values.force })
    if (values.json) writeJson(result)
    else process.stdout.write(describeStats(result))
    return 0
  },
}

function parseBackends(text: string): StatsBackend[] {
  if (text === 'all') return [...STATS_BACKENDS]
  const list = text.split(',').map((b) => b.trim())
  for (const b of list) if (!(STATS_BACKENDS as readonly string[]).includes(b)) throw new UsageError(`--backend must be ${STATS_BACKENDS.join(', ')} or all, got "${b}"`)
  return [...new Set(list)] as StatsBackend[]
}

function parsePrecision(text: string): Precision {
  if (!(PRECISIONS as readonly string[]).includes(text)) throw new UsageError(`--precision must be f64 or f32, got "${text}"`)
  return text as Precision
}

/** Files as given; folders become their *.csv files, sorted. */
async function expandInputs(inputs: string[]): Promise<string[]> {
  const files: string[] = []
  for (const input of inputs) {
    const s = await stat(input).catch(() => {
      throw new ApiError('io', `${input}: no such file or directory`)
    })
    if (!s.isDirectory()) {
      files.push(input)
      continue
    }
    const csvs = (await readdir(input)).filter((f) => f.toLowerCase().endsWith('.csv')).sort()
    if (csvs.length === 0) throw new ApiError('invalid-input', `${input}: no *.csv files in this folder`)
    files.push(...csvs.map((f) => join(input, f)))
  }
  return files
}

const num = (v: number, digits = 6) => (Number.isInteger(v) ? String(v) : v.toPrecision(digits))

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n') + '\n'
}

function describeStats(result: StatsResult): string {
  let out = ''
  for (const f of result.files) {
    out += `\n${f.path}: ${f.rows} rows, ${(f.bytes / 1e6).toFixed(1)} MB, loaded in ${f.load_ms.toFixed(0)} ms\n`
    out += table([
      ['column', 'n', 'missing', 'mean', 'std', 'CV', 'median', 'MAD'],
      ...Object.entries(f.columns).map(([c, s]) => [c, String(s.n), String(s.missing), num(s.mean), num(s.std), num(s.cv), num(s.median), num(s.mad)]),
    ])
    const cols = Object.keys(f.columns)
    out += '\n' + table([
      ['backend', 'precision', 'compute ms', 'upload ms', ...cols.flatMap((c) => [`CV ${c}`, `MAD ${c}`])],
      ...Object.entries(f.backends).map(([b, r]) => [
        b,
        r.precision,
        r.compute_ms.toFixed(2),
        r.upload_ms === undefined ? '' : r.upload_ms.toFixed(2),
        ...cols.flatMap((c) => [num(r.columns[c].cv), num(r.columns[c].mad)]),
      ]),
    ])
  }
  if (result.files.length > 1) {
    const cols = Object.keys(result.files[0].columns)
    out += '\nSummary (f64 reference)\n' + table([
      ['file', ...cols.flatMap((c) => [`MAD ${c}`, `CV ${c}`])],
      ...result.files.map((f) => [f.path.split(/[\\/]/).pop()!, ...cols.flatMap((c) => (f.columns[c] ? [num(f.columns[c].mad), num(f.columns[c].cv, 5)] : ['', '']))]),
    ])
  }
  return out
}
