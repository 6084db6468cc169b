// `paralab bench stats`: the accelerometer workload against DuckDB and Polars on one generated file
// of the dataset's size — load time, computation time per backend, end to end, and peak memory.
import { existsSync } from 'node:fs'
import { mkdir, open } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir, cpus, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiError } from '../../../shared/errors'
import { DEFAULT_STATS_COLUMNS, type StatsBackend } from '../../../shared/workloads/stats/types'
import { adapterName } from '../../../shared/device'
import { GPU_WARMUP_MS, gpuInfo, warmUp } from '../../gpu/runtime'
import { readCsvHeader, type CsvTable } from '../../io/csv-loader'
import { loadTable, tableFormat } from '../../io/table-loader'
import { generateAccCsv } from './generate-acc'
import { createStatsEngine } from './stats-engine'
import type { GpuStatsEngine, KernelTime } from './gpu/gpu-engine'
import type { PreparedColumn } from './cpu-engine'
import { median, medianMs, runChild } from './measure'
import { maxOf } from '../../../shared/extent'

export const BENCH_SEED = 1

export interface StatsBenchOptions {
  rows: number
  file?: string
  backends: StatsBackend[]
  repeat: number
  loadRepeat: number
  /** Backends of the end-to-end runs, taking turns; ratios are against the first. */
  e2eBackends: StatsBackend[]
  duckdb: boolean
  polars: boolean
  log: (line: string) => void
}

export interface StatsBenchResult {
  machine: { cpu: string; cores: number; memory_GB: number; gpu: string }
  file: { path: string; rows: number; bytes: number }
  load: {
    paralab_ms: number
    /** Worker threads and range size the loader planned (cores, capped by its memory budget). */
    threads: number
    range_MB: number
    duckdb_ms?: number
    ratio_vs_duckdb?: number
    /** nodejs-polars `readCSV` of the same three columns, each read in a fresh process (timed around the call). */
    polars_ms?: number
    polars_version?: string
    polars_peak_rss_MB?: number
    ratio_vs_polars?: number
  }
  /**
   * The three columns computed together (engine.computeMany, as a job does); for `gpu` also
   * one column at a time (separately_ms), to show what sharing its submits saves.
   */
  compute: Record<string, { compute_ms: number; separately_ms?: number; upload_ms?: number; ratio_vs_serial?: number }>
  /** Each GPU kernel's time on the first column, in order (GpuStatsEngine.profile). */
  gpu_kernels?: KernelTime[]
  /** `paralab stats` per backend, runs taking turns; ratio_vs_first: against the first backend listed. */
  end_to_end?: { backend: string; paralab_ms: number; ratio_vs_first?: number; peak_rss_MB?: number }[]
  /** DuckDB loading the file and computing CV and MAD in SQL, against the first end-to-end backend. */
  duckdb_end_to_end?: { duckdb_ms: number; ratio_vs_duckdb: number }
  notes: string[]
}

/** DuckDB is a dev dependency of this benchmark only; without it the comparisons are skipped. */
async function openDuckDb(): Promise<{ run(sql: string): Promise<void>; all(sql: string): Promise<Record<string, unknown>[]>; close(): void } | undefined> {
  try {
    const { DuckDBInstance } = await import('@duckdb/node-api')
    const instance = await DuckDBInstance.create(':memory:')
    const con = await instance.connect()
    return {
      run: async (sql) => void (await con.run(sql)),
      all: async (sql) => (await con.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[],
      close: () => con.closeSync(),
    }
  } catch {
    return undefined
  }
}

/**
 * Polars (nodejs-polars) is a dev dependency of this benchmark only, like DuckDB: it is found at
 * run time from the project's node_modules (never bundled) and each read runs in a fresh Node
 * process, so that Polars' memory (freed only when its objects are collected) and threads do not
 * weigh on the other measurements. Returns undefined when it is not installed or cannot load.
 */
export async function findPolars(): Promise<{ module: string; version: string } | undefined> {
  try {
    const require = createRequire(import.meta.url)
    const module = require.resolve('nodejs-polars')
    const probe = await runChild(process.execPath, ['-e', `process.stdout.write(String(require(${JSON.stringify(module)}).version ?? ''))`])
    if (probe.code !== 0) return undefined
    return { module, version: probe.stdout.trim() || 'unknown' }
  } catch {
    return undefined
  }
}

/** The child process that reads `columns` of a CSV file with Polars and prints its time and rows. */
export function polarsReadScript(module: string): string {
  return [
    `const pl = require(${JSON.stringify(module)})`,
    `const [path, names] = [process.argv[1], JSON.parse(process.argv[2])]`,
    `const t = performance.now()`,
    `const df = pl.readCSV(path, { columns: names })`,
    `const ms = performance.now() - t`,
    `process.stdout.write(JSON.stringify({ ms, rows: df.height, dtypes: df.dtypes.map(String) }))`,
  ].join('\n')
}

/**
 * The header's names of `columns` as they stand in the file, spaces included (Paralab trims them,
 * Polars does not), or undefined when the header is quoted or lacks one of them.
 */
export async function rawColumnNames(path: string, columns: readonly string[]): Promise<string[] | undefined> {
  const trimmed = await readCsvHeader(path)
  const handle = await open(path, 'r')
  try {
    const probe = Buffer.alloc(64 * 1024)
    const { bytesRead } = await handle.read(probe, 0, probe.length, 0)
    const text = probe.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '')
    const line = text.split('\n')[0].replace(/\r$/, '')
    if (line.includes('"')) return undefined
    const raw = line.split(',')
    if (raw.length !== trimmed.length) return undefined
    const names = columns.map((c) => raw[trimmed.indexOf(c)])
    return names.every((n) => n !== undefined) ? names : undefined
  } finally {
    await handle.close()
  }
}

export async function benchStats(opts: StatsBenchOptions): Promise<StatsBenchResult> {
  const notes: string[] = []
  const path = opts.file ?? join(tmpdir(), 'paralab-bench', `acc-${opts.rows}-seed${BENCH_SEED}.csv`)
  let bytes: number
  if (!existsSync(path)) {
    opts.log(`generating ${path} (${opts.rows} rows, seed ${BENCH_SEED})…`)
    await mkdir(dirname(path), { recursive: true })
    bytes = (await generateAccCsv(path, { rows: opts.rows, seed: BENCH_SEED })).bytes
  }
  const gpu = await gpuInfo()
  // DuckDB reads the file as what its content is: CSV text or Parquet (an Arrow file it cannot read).
  const format = await tableFormat(path)
  const sql = (s: string) => s.replaceAll('$FILE', path.replaceAll("'", "''")).replaceAll('read_csv(', format === 'parquet' ? 'read_parquet(' : 'read_csv(')

  // Load: the parallel loader against Polars and DuckDB reading the same file (warm page cache).
  // Paralab and Polars take turns, so that a busy moment of the machine weighs on both alike.
  const polars = opts.polars ? await findPolars() : undefined
  if (opts.polars && !polars) notes.push('Polars (nodejs-polars) is not installed or does not load here: comparisons with it were skipped')
  const polarsNames = polars ? await rawColumnNames(path, DEFAULT_STATS_COLUMNS) : undefined
  if (polars && !/\.(csv|tsv)$/i.test(path)) notes.push('Polars reads only files named *.csv or *.tsv by path: comparisons with it were skipped')
  const usePolars = polars && polarsNames && /\.(csv|tsv)$/i.test(path)
  let table!: CsvTable
  await loadTable(path, { columns: DEFAULT_STATS_COLUMNS })
  const loadSamples: number[] = []
  const polarsSamples: number[] = []
  let polarsPeak = 0
  for (let i = 0; i < opts.loadRepeat; i++) {
    const paralabFirst = i % 2 === 0
    if (paralabFirst) loadSamples.push(await timeLoad())
    if (usePolars) {
      const r = await runChild(process.execPath, ['-e', polarsReadScript(polars.module), path, JSON.stringify(polarsNames)])
      if (r.code !== 0) throw new ApiError('internal', `Polars failed to read ${path}: ${r.stderr.trim().split('\n').pop()}`)
      const out = JSON.parse(r.stdout) as { ms: number; rows: number }
      if (out.rows !== table.rows) throw new ApiError('internal', `Polars read ${out.rows} rows of ${path}, Paralab ${table.rows}`)
      polarsSamples.push(out.ms)
      polarsPeak = Math.max(polarsPeak, r.peakRssMb ?? 0)
    }
    if (!paralabFirst) loadSamples.push(await timeLoad())
  }
  async function timeLoad(): Promise<number> {
    const t = performance.now()
    table = await loadTable(path, { columns: DEFAULT_STATS_COLUMNS })
    return performance.now() - t
  }
  const loadMs = median(loadSamples)
  bytes = table.bytes
  opts.log(`load: paralab ${loadMs.toFixed(0)} ms (${table.threads} threads, ranges of ${(table.rangeBytes / 2 ** 20).toFixed(1)} MiB)`)
  const polarsMs = polarsSamples.length ? median(polarsSamples) : undefined
  if (polarsMs !== undefined) opts.log(`load: polars ${polarsMs.toFixed(0)} ms (nodejs-polars ${polars!.version})`)
  const duck = opts.duckdb && format !== 'arrow' ? await openDuckDb() : undefined
  if (opts.duckdb && !duck) notes.push(format === 'arrow' ? 'DuckDB does not read Arrow IPC files: comparisons with it were skipped' : 'DuckDB (@duckdb/node-api) is not installed: comparisons with it were skipped')
  let duckLoadMs: number | undefined
  if (duck) {
    duckLoadMs = await medianMs(opts.loadRepeat, async () => {
      await duck.run('DROP TABLE IF EXISTS t')
      await duck.run(sql(`CREATE TABLE t AS SELECT * FROM read_csv('$FILE')`))
    })
    await duck.run('DROP TABLE IF EXISTS t')
    opts.log(`load: duckdb ${duckLoadMs.toFixed(0)} ms`)
  }

  // Computation of all three columns in f64, data already loaded (and uploaded, for the GPU).
  const compute: StatsBenchResult['compute'] = {}
  let gpuKernels: KernelTime[] | undefined
  for (const backend of opts.backends) {
    if (backend === 'gpu' && !gpu.available) {
      notes.push(`gpu skipped: ${gpu.reason}`)
      continue
    }
    const engine = await createStatsEngine(backend, {})
    try {
      const t = performance.now()
      const cols: PreparedColumn[] = []
      for (const c of DEFAULT_STATS_COLUMNS) cols.push(await engine.prepare(table.columns[c].values, 'f64'))
      const prepareMs = performance.now() - t
      // A first run compiles the kernels (GPU) and warms caches: it is not timed. The GPU's
      // runs go on untimed until its clock has risen from idle (the load before kept it idle).
      await engine.computeMany(cols)
      if (backend === 'gpu') await warmUp(() => engine.computeMany(cols), GPU_WARMUP_MS)
      // For the GPU, together and one column at a time take turns, so that clock changes fall on both.
      const together: number[] = []
      const oneByOne: number[] = []
      for (let r = 0; r < opts.repeat; r++) {
        let t0 = performance.now()
        await engine.computeMany(cols)
        together.push(performance.now() - t0)
        if (backend !== 'gpu') continue
        t0 = performance.now()
        for (const col of cols) await engine.compute(col)
        oneByOne.push(performance.now() - t0)
      }
      const ms = median(together)
      const separately = backend === 'gpu' ? median(oneByOne) : undefined
      compute[backend] = { compute_ms: ms, ...(separately !== undefined && { separately_ms: separately }), ...(backend === 'gpu' && { upload_ms: prepareMs }) }
      opts.log(`compute: ${backend} ${ms.toFixed(2)} ms${separately !== undefined ? ` (one column at a time ${separately.toFixed(2)} ms; upload ${prepareMs.toFixed(0)} ms)` : ''}`)
      if (backend === 'gpu') {
        gpuKernels = await (engine as GpuStatsEngine).profile(cols[0])
        opts.log(`gpu kernels (${DEFAULT_STATS_COLUMNS[0]}): ${gpuKernels.map((k) => `${k.pass === 'values' ? '' : 'dev '}${k.kernel} ${(k.ms * 1000).toFixed(0)} µs`).join(', ')}`)
      }
      for (const col of cols) engine.release(col)
    } finally {
      await engine.dispose()
    }
  }
  if (compute.serial) for (const r of Object.values(compute)) r.ratio_vs_serial = r.compute_ms / compute.serial.compute_ms

  // End to end: `paralab stats` as a user runs it, against DuckDB loading and computing CV and MAD in SQL.
  let endToEnd: StatsBenchResult['end_to_end']
  let duckEndToEnd: StatsBenchResult['duckdb_end_to_end']
  const cli = join(dirname(fileURLToPath(import.meta.url)), 'cli.js')
  if (existsSync(cli)) {
    const runs = new Map<StatsBackend, Awaited<ReturnType<typeof runChild>>[]>(opts.e2eBackends.map((b) => [b, []]))
    // Backends take turns, so that a slow moment of a shared machine falls on each alike.
    for (let i = 0; i < opts.loadRepeat; i++)
      for (const backend of opts.e2eBackends) {
        const r = await runChild(process.execPath, [cli, 'stats', path, '--backend', backend, '--repeat', '1', '--json'])
        if (r.code !== 0) throw new ApiError('internal', `paralab stats --backend ${backend} failed: ${r.stderr.trim().split('\n').pop()}`)
        runs.get(backend)!.push(r)
      }
    endToEnd = [...runs].map(([backend, rs]) => ({ backend, paralab_ms: median(rs.map((r) => r.ms)), peak_rss_MB: maxOf(rs.map((r) => r.peakRssMb ?? 0)) || undefined }))
    for (const e of endToEnd) {
      e.ratio_vs_first = e.paralab_ms / endToEnd[0].paralab_ms
      opts.log(`end to end: paralab stats --backend ${e.backend} ${e.paralab_ms.toFixed(0)} ms, peak RSS ${e.peak_rss_MB?.toFixed(0)} MB`)
    }
    if (duck) {
      const select = DEFAULT_STATS_COLUMNS.map((c) => `stddev_pop(${c}) / avg(${c}) AS cv_${c}, mad(${c}) AS mad_${c}`).join(', ')
      const duckMs = await medianMs(opts.loadRepeat, async () => {
        await duck.run('DROP TABLE IF EXISTS t')
        await duck.run(sql(`CREATE TABLE t AS SELECT * FROM read_csv('$FILE')`))
        await duck.all(`SELECT ${select} FROM t`)
      })
      await duck.run('DROP TABLE IF EXISTS t')
      duckEndToEnd = { duckdb_ms: duckMs, ratio_vs_duckdb: endToEnd[0].paralab_ms / duckMs }
      opts.log(`end to end: duckdb ${duckMs.toFixed(0)} ms`)
    }
  } else notes.push('end to end skipped: run from the built CLI (out/main/cli.js)')
  duck?.close()

  return {
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memory_GB: Math.round(totalmem() / 2 ** 30), gpu: gpu.available ? adapterName(gpu.adapter!) : `none (${gpu.reason})` },
    file: { path, rows: table.rows, bytes },
    load: {
      paralab_ms: loadMs,
      threads: table.threads,
      range_MB: table.rangeBytes / 2 ** 20,
      duckdb_ms: duckLoadMs,
      ratio_vs_duckdb: duckLoadMs ? loadMs / duckLoadMs : undefined,
      polars_ms: polarsMs,
      polars_version: polars?.version,
      polars_peak_rss_MB: polarsPeak || undefined,
      ratio_vs_polars: polarsMs ? loadMs / polarsMs : undefined,
    },
    compute,
    ...(gpuKernels && { gpu_kernels: gpuKernels }),
    end_to_end: endToEnd,
    duckdb_end_to_end: duckEndToEnd,
    notes,
  }
}
