import { STATS_BACKENDS, type StatsBackend } from '../../../shared/workloads/stats/types'
import type { StatsBenchResult } from './bench'
import { intOption, UsageError, writeJson, type Command } from '../../terminal/command'
import { checkSave, SAVE_HELP, SAVE_OPTIONS, saveJson } from '../../terminal/save-flag'

/** Rows of the generated file: the size of the dataset's ACC_001. */
export const BENCH_ROWS = 20_296_428

export const benchStatsCommand: Command = {
  name: 'bench stats',
  summary: 'Benchmark the accelerometer workload: loading, each backend, end to end, memory; against DuckDB and Polars.',
  usage: 'paralab bench stats [--rows N] [--file PATH] [--backend B,…] [--repeat R] [--load-repeat L] [--no-duckdb] [--no-polars] [--json] [--save FILE [--force]]',
  help: [
    `  --rows N          rows of the generated file (default ${BENCH_ROWS}, the size of the dataset's ACC_001)`,
    '  --file PATH       use this CSV, Parquet or Arrow file instead of the generated CSV',
    `  --backend B,…     backends to time (default: all; gpu when a GPU is available)`,
    '  --repeat R        computations per backend; the median is reported (default 10)',
    '  --load-repeat L   loads (Paralab and Polars in turn) and end-to-end runs; the median is reported (default 3)',
    '  --e2e-backend B,…  backends of the end-to-end runs, taking turns; ratios against the first (default workers-simd)',
    '  --no-duckdb       skip the DuckDB comparisons',
    '  --no-polars       skip the Polars (nodejs-polars readCSV) load comparison',
    '  --json            print the figures as one JSON object on stdout',
    ...SAVE_HELP,
  ].join('\n'),
  options: {
    rows: { type: 'string' },
    file: { type: 'string' },
    backend: { type: 'string' },
    repeat: { type: 'string' },
    'load-repeat': { type: 'string' },
    'e2e-backend': { type: 'string' },
    'no-duckdb': { type: 'boolean' },
    'no-polars': { type: 'boolean' },
    json: { type: 'boolean' },
    ...SAVE_OPTIONS,
  },
  async run(values) {
    await checkSave(values.save, !!values.force)
    const backends = (values.backend ?? STATS_BACKENDS.join(',')).split(',') as StatsBackend[]
    const e2eBackends = (values['e2e-backend'] ?? 'workers-simd').split(',') as StatsBackend[]
    for (const b of [...backends, ...e2eBackends])
      if (!(STATS_BACKENDS as readonly string[]).includes(b)) throw new UsageError(`unknown backend "${b}"`)
    // The bench (and through it DuckDB, Polars and the GPU code) is loaded only when it runs.
    const { benchStats } = await import('./bench')
    const result = await benchStats({
      rows: intOption(values.rows, 'rows', 1, 2 ** 40) ?? BENCH_ROWS,
      file: values.file,
      backends,
      repeat: intOption(values.repeat, 'repeat', 1, 1000) ?? 10,
      loadRepeat: intOption(values['load-repeat'], 'load-repeat', 1, 100) ?? 3,
      e2eBackends,
      duckdb: !values['no-duckdb'],
      polars: !values['no-polars'],
      log: (line) => process.stderr.write(`${line}\n`),
    })
    await saveJson(values.save, result, !!values.force)
    if (values.json) writeJson(result)
    else process.stdout.write(describe(result))
    return 0
  },
}

export function describe(r: StatsBenchResult): string {
  const ms = (v?: number) => (v === undefined ? 'n/a' : `${v.toFixed(v < 10 ? 2 : 0)} ms`)
  const ratio = (v?: number) => (v === undefined ? '' : `  (${v.toFixed(2)}×)`)
  const lines = [
    `machine   ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memory_GB} GB; GPU: ${r.machine.gpu}`,
    `file      ${r.file.path}: ${r.file.rows} rows, ${(r.file.bytes / 1e6).toFixed(0)} MB`,
    `load      paralab ${ms(r.load.paralab_ms)} (${r.load.threads} threads, ranges of ${r.load.range_MB.toFixed(1)} MiB)`,
    ...(r.load.polars_ms !== undefined
      ? [`  Polars    ${ms(r.load.polars_ms)} readCSV (nodejs-polars ${r.load.polars_version}, fresh process each, peak RSS ${r.load.polars_peak_rss_MB?.toFixed(0) ?? 'n/a'} MB); paralab/Polars${ratio(r.load.ratio_vs_polars)}`]
      : []),
    ...(r.load.duckdb_ms !== undefined ? [`  DuckDB    ${ms(r.load.duckdb_ms)} CREATE TABLE … read_csv; paralab/DuckDB${ratio(r.load.ratio_vs_duckdb)}`] : []),
    'compute   (3 columns together, f64, median; ratio to serial)',
    ...Object.entries(r.compute).map(
      ([b, c]) =>
        `  ${b.padEnd(13)} ${ms(c.compute_ms)}${ratio(c.ratio_vs_serial)}${c.separately_ms !== undefined ? `  one column at a time ${ms(c.separately_ms)}` : ''}${c.upload_ms !== undefined ? `  upload ${ms(c.upload_ms)}` : ''}`,
    ),
  ]
  const e2e = r.end_to_end ?? []
  if (e2e.length > 0) lines.push(`end to end (paralab stats; ratio to ${e2e[0].backend})`)
  for (const e of e2e) lines.push(`  ${e.backend.padEnd(13)} ${ms(e.paralab_ms)}${ratio(e.ratio_vs_first)}  peak RSS ${e.peak_rss_MB?.toFixed(0) ?? 'n/a'} MB`)
  if (r.duckdb_end_to_end) lines.push(`  DuckDB load + SQL ${ms(r.duckdb_end_to_end.duckdb_ms)}; ${e2e[0].backend}/DuckDB${ratio(r.duckdb_end_to_end.ratio_vs_duckdb)}`)
  return lines.concat(r.notes.map((n) => `note      ${n}`)).join('\n') + '\n'
}
