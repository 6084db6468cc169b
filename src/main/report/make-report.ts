// A run's report, made from its envelope: checked first (check-envelope.ts), then its tables,
// its charts drawn as SVG by the exporter the charts' files use, the workload's own pictures
// (its engine's `--out` files that are PNG: the landslide's final map), its timed runs and their
// checks, and the command that runs it again. Written whole or not at all.
import { stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ApiError } from '../../shared/errors'
import type { ChartSpec } from '../../shared/charts/spec'
import { workload } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { markedPartial } from '../../shared/workloads/partial'
import { sourceCommit } from '../build-info'
import type { AnyEngine } from '../engine'
import { writeFileAtomic } from '../io/atomic-write'
import { version } from '../../../package.json'
import { checkEnvelope } from './check-envelope'
import { inlineSvg } from './html'
import { reportHtml } from './report-html'
import { rerunCommand } from './rerun-command'

export interface ReportOptions {
  /** The workload's engine, for its own pictures; without it the report holds the charts alone. */
  engine?: AnyEngine
  /** Draws a chart as SVG (default: the exporter, in this thread). */
  renderSvg?: (spec: ChartSpec) => Promise<Uint8Array>
  /** Files its engine made for `--out` already (so they are not drawn twice). */
  outputFiles?: { name: string; data: Uint8Array | string }[]
  /** Where the envelope came from, for messages. */
  source?: string
}

async function defaultSvg(spec: ChartSpec): Promise<Uint8Array> {
  // The renderer (Chart.js on the canvas addon) loads with the first report or chart.
  return (await import('../charts/render')).renderChart(spec, 'svg')
}

/** The report of `value` (an envelope as read: checked here), as HTML text. */
export async function makeReport(value: unknown, opts: ReportOptions = {}): Promise<string> {
  const env: ResultEnvelope = checkEnvelope(value, opts.source ?? 'the envelope')
  const def = workload(env.workload)
  const results = env.results as never
  const render = opts.renderSvg ?? defaultSvg
  const charts: { name: string; title: string; svg: string }[] = []
  for (const chart of def.charts(results, env as never)) {
    const svg = new TextDecoder().decode(await render(markedPartial(chart.spec, env)))
    charts.push({ name: chart.name, title: (chart.spec.data as { title?: string }).title ?? chart.name, svg: inlineSvg(svg, chart.name) })
  }
  const outputs = opts.outputFiles ?? (env.partial ? [] : ((await (opts.engine?.cli.outputFiles as ((r: unknown) => Promise<{ name: string; data: Uint8Array | string }[]>) | undefined)?.(env.results)) ?? []))
  const images = outputs.filter((f): f is { name: string; data: Uint8Array } => f.name.endsWith('.png') && f.data instanceof Uint8Array).map((f) => ({ name: f.name, png: f.data }))
  return reportHtml({
    envelope: env,
    tables: def.tables(results),
    charts,
    images,
    runs: (def.compared as (e: ResultEnvelope) => ReturnType<typeof def.compared>)(env),
    command: rerunCommand(env),
    madeBy: { version, commit: sourceCommit(), at: new Date() },
  })
}

/** Refuses, before any work, a report FILE that exists (without `force`), is a folder, or lies in no folder. */
export async function checkReportPath(path: string, force: boolean, flag = '--report'): Promise<void> {
  const s = await stat(path).catch(() => null)
  if (s?.isDirectory()) throw new ApiError('io', `${flag} ${path}: it is a folder`)
  if (s && !force) throw new ApiError('io', `${flag} ${path} exists (use --force to replace it)`)
  if (!(await stat(dirname(path)).catch(() => null))?.isDirectory()) throw new ApiError('io', `${flag} ${path}: its folder ${dirname(path)} does not exist`)
}

/** The report into `path`, whole: through a temporary file renamed into place. */
export async function writeReport(path: string, html: string, force: boolean): Promise<void> {
  await writeFileAtomic(path, html, { overwrite: force })
}
