// `--out DIR` of any workload: the envelope as results.json, each result table as <name>.csv and
// <name>.parquet (types and units in its schema's metadata: io/parquet/write-result-table.ts), each
// chart as SVG and PNG; folders above DIR that do not exist yet are made. The set is whole or absent: it is written into a hidden sibling folder
// and renamed into place at the end, so a full disk, an error or a killed process never leaves
// half a result set under DIR (and an error leaves no temporary files either).
import { constants } from 'node:fs'
import { access, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { ApiError } from '../../shared/errors'
import { workload } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { tableCsv, tableNotes } from '../../shared/workloads/tables'
import { markedPartial } from '../../shared/workloads/partial'
import { resultTableParquet } from '../io/parquet/write-result-table'
import type { ChartSize } from '../../shared/api'

export interface OutputOptions {
  /** Replace DIR if it exists. */
  force?: boolean
  /** Size of the charts (PNG scale default 2). */
  chartSize?: ChartSize
  /** Writes one file (tests inject failures such as ENOSPC here). */
  write?: (path: string, data: Uint8Array | string) => Promise<void>
  /** The workload's own files beside the tables and charts (its engine's `outputFiles`). */
  extra?: OutputFile[]
}

export interface OutputFile {
  name: string
  data: Uint8Array | string
}

/** What a result set may hold: what Paralab writes, so replacing one loses nothing of the user's. */
const RESULT_FILE = /\.(json|csv|parquet|svg|png|gif)$/

/** Whether `name` is a name a result set's file can have: a plain, visible .json, .csv, .parquet, .svg, .png or .gif name. */
export function isResultFileName(name: string): boolean {
  return RESULT_FILE.test(name) && basename(name) === name && !name.startsWith('.') && !name.includes('\\')
}

/** Checks, before any work, that DIR can be written: absent (or `force`), in a writable folder. */
export async function checkOutputDir(dir: string, opts: { force?: boolean } = {}): Promise<void> {
  const target = resolve(dir)
  const existing = await stat(target).catch(() => null)
  if (existing && !opts.force) throw new ApiError('io', `${dir} exists (use --force to replace it)`)
  if (existing && !(await isResultSet(target))) throw new ApiError('io', `${dir} exists and is not a Paralab result folder, so --force will not replace it; choose another --out`)
  // Missing folders above DIR are made (`--out runs/acc` in a fresh folder), under the nearest one that exists.
  let parent = dirname(target)
  let p = await stat(parent).catch(() => null)
  while (!p && dirname(parent) !== parent) {
    parent = dirname(parent)
    p = await stat(parent).catch(() => null)
  }
  if (!p) throw new ApiError('io', `cannot write ${dir}: no folder above it exists`)
  if (!p.isDirectory()) throw new ApiError('io', `cannot write ${dir}: ${parent} is a file, not a folder`)
  await access(parent, constants.W_OK).catch(() => {
    throw new ApiError('io', `cannot write ${dir}: its folder ${parent} is not writable`)
  })
}

/** Whether `dir` holds a result set written here before, and nothing else (so replacing it loses nothing). */
async function isResultSet(dir: string): Promise<boolean> {
  try {
    const entries = await readdir(dir, { withFileTypes: true })
    if (entries.some((e) => !e.isFile() || !RESULT_FILE.test(e.name))) return false
    const env = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as Partial<ResultEnvelope>
    return typeof env.paralabVersion === 'string' && typeof env.workload === 'string'
  } catch {
    return false
  }
}

/** The files of a result set, rendered in memory. */
async function render(env: ResultEnvelope, size: ChartSize = {}, extra: OutputFile[] = []): Promise<OutputFile[]> {
  const def = workload(env.workload)
  const results = env.results as never
  const tables = def.tables(results)
  // What each CSV's numbers mean: beside the envelope, since a note line inside a CSV breaks its readers.
  const notes = tableNotes(tables)
  const json = Object.keys(notes).length ? { ...env, tableNotes: notes } : env
  const files: OutputFile[] = [{ name: 'results.json', data: JSON.stringify(json, null, 2) + '\n' }]
  // Each table twice: CSV for people and spreadsheets, Parquet for pandas, Polars, R and DuckDB.
  for (const table of tables) files.push({ name: `${table.name}.csv`, data: tableCsv(table) }, { name: `${table.name}.parquet`, data: resultTableParquet(table) })
  // The renderer (Chart.js configurations, the canvas) is loaded only by a run that writes charts.
  const { chartImageSize, renderChart } = await import('../charts/render')
  // A partial run's charts (a cluster run with tasks that did not complete) say so under their title.
  for (const chart of def.charts(results, env as never))
    for (const format of ['svg', 'png'] as const) files.push({ name: `${chart.name}.${format}`, data: await renderChart(markedPartial(chart.spec, env), format, chartImageSize(size)) })
  for (const f of extra) {
    if (!isResultFileName(f.name))
      throw new ApiError('internal', `${env.workload}: output file name ${JSON.stringify(f.name)} is not a plain .json, .csv, .parquet, .svg, .png or .gif name`)
    if (files.some((g) => g.name === f.name)) throw new ApiError('internal', `${env.workload}: output file ${f.name} would replace a table or chart of the same name`)
    files.push(f)
  }
  return files
}

const TEMP = /^\.(.+)\.(\d+)\.[0-9a-f]+\.(tmp|old)$/

/** Removes what a killed earlier run left beside `target`: its temporary folders, if their process is gone. */
async function sweep(target: string): Promise<void> {
  const parent = dirname(target)
  for (const name of await readdir(parent).catch(() => [])) {
    const m = TEMP.exec(name)
    if (!m || m[1] !== basename(target) || alive(Number(m[2]))) continue
    await rm(join(parent, name), { recursive: true, force: true })
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export async function writeOutputs(dir: string, env: ResultEnvelope, opts: OutputOptions = {}): Promise<string[]> {
  const target = resolve(dir)
  await checkOutputDir(dir, opts)
  const files = await render(env, opts.chartSize, opts.extra)
  await sweep(target)
  const sibling = (kind: 'tmp' | 'old') => join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.${kind}`)
  const temp = sibling('tmp')
  const write = opts.write ?? ((path, data) => writeFile(path, data, { flag: 'wx' }))
  try {
    await mkdir(dirname(target), { recursive: true })
    await mkdir(temp)
    for (const f of files) await write(join(temp, f.name), f.data)
    const old = opts.force && (await stat(target).catch(() => null)) ? sibling('old') : null
    if (old) await rename(target, old)
    try {
      await rename(temp, target)
    } catch (e) {
      if (old) await rename(old, target)
      throw e
    }
    if (old) await rm(old, { recursive: true, force: true })
  } catch (e) {
    await rm(temp, { recursive: true, force: true })
    const err = e as NodeJS.ErrnoException
    if (err.code === 'ENOTEMPTY' || err.code === 'EEXIST') throw new ApiError('io', `${dir} appeared while the results were written (use --force to replace it)`)
    throw e instanceof ApiError ? e : new ApiError('io', `cannot write ${dir}: ${err.code === 'ENOSPC' ? 'no space left on the device' : err.message}`)
  }
  return files.map((f) => join(target, f.name))
}
