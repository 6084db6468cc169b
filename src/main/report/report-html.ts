// A run's report as one HTML file that needs nothing else: what was asked, on which inputs, where,
// how long it took, what came out (tables, charts as inline SVG, the workload's pictures as PNG
// data), the checks, and the command that runs it again; the envelope itself at the end as JSON.
// No script runs in it (its policy allows none), nothing is fetched, and it prints on A4.
import { formatNumber } from '../../shared/charts/format'
import type { ComparableRun } from '../../shared/workloads/comparable'
import type { ResultTable } from '../../shared/workloads/definition'
import type { InputFile, ResultEnvelope } from '../../shared/workloads/envelope'
import { partialNote } from '../../shared/workloads/partial'
import type { ParamSchema } from '../../shared/workloads/schema'
import { workload } from '../../shared/workloads'
import { escapeHtml, scriptJson } from './html'
import type { RerunCommand } from './rerun-command'

/** The report's own policy: no script, no request; styles and data: images only. */
export const REPORT_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

/** Columns beyond which a table no longer fits an A4 page as it is: turned, or set small. */
const WIDE_TABLE_COLUMNS = 8
/** Rows of a wide table that are shown turned (a line per column); more are set small instead. */
const TURNED_TABLE_ROWS = 6

/** Rows a table shows at most; the envelope at the end holds them all. */
export const MAX_TABLE_ROWS = 2000

export interface ReportParts {
  envelope: ResultEnvelope
  tables: ResultTable[]
  /** Each chart's SVG, checked for inlining (html.ts inlineSvg). */
  charts: { name: string; title: string; svg: string }[]
  /** The workload's own pictures (the landslide's final map). */
  images: { name: string; png: Uint8Array }[]
  runs: ComparableRun[]
  command: RerunCommand
  /** The Paralab that wrote the report. */
  madeBy: { version: string; commit?: string; at: Date }
}

/** HTML already made safe (escaped, or markup of this module's own). */
class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[]

function part(v: Part): string {
  if (v instanceof Html) return v.text
  if (Array.isArray(v)) return v.map(part).join('')
  if (v === null || v === undefined || v === false) return ''
  return escapeHtml(v)
}

/** Markup whose every interpolated value is escaped, unless it is Html already. */
function h(strings: TemplateStringsArray, ...values: Part[]): Html {
  return new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? part(values[i]) : ''), ''))
}

const NOT_RECORDED = h`<span class="none">not recorded</span>`

function cell(v: unknown): Html | string {
  if (v === null || v === undefined) return h`<span class="none">—</span>`
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object')) return v.join(', ')
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

function bytesText(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${unit === 0 ? value : formatNumber(value, 3)} ${units[unit]} (${bytes} bytes)`
}

function ms(v: number): string {
  return `${formatNumber(v, 4)} ms`
}

function keyValues(rows: [string, Part][]): Html {
  return h`<table class="kv"><tbody>${rows.map(([k, v]) => h`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}</tbody></table>`
}

function paramsTable(env: ResultEnvelope): Html {
  const schema = workload(env.workload).params as ParamSchema
  const params = env.params as Record<string, unknown>
  return h`<table><thead><tr><th>parameter</th><th>value</th><th>unit</th></tr></thead><tbody>${Object.entries(params).map(
    ([name, value]) => h`<tr><td title="${schema[name]?.help ?? ''}">${schema[name]?.label ?? name} <code>${name}</code></td><td class="wrap">${cell(value)}</td><td>${schema[name]?.unit ?? ''}</td></tr>`,
  )}</tbody></table>`
}

/** The provenance an input may record (null or absent: not recorded). */
type InputRecord = InputFile & { sha256?: string | null; dataset?: string | null; generator?: { name: string; parameters?: Record<string, unknown> | null; seed?: number | string | null } | null }

function generatorText(g: InputRecord['generator']): Part {
  if (!g) return NOT_RECORDED
  return h`${g.name}${g.parameters ? h` <code>${JSON.stringify(g.parameters)}</code>` : ''}${g.seed != null ? `, seed ${g.seed}` : ''}`
}

function inputsTable(files: readonly InputFile[]): Html {
  if (!files.length) return h`<p>This run read no files.</p>`
  return h`<table class="inputs"><thead><tr><th>name</th><th>size</th><th>format</th><th>sha256</th><th>dataset</th><th>generator</th><th>modified</th></tr></thead><tbody>${files.map((f) => {
    const r = f as InputRecord
    return h`<tr><td class="wrap"><strong>${baseName(r.path)}</strong><br><code>${r.path}</code></td><td>${bytesText(r.bytes)}</td><td>${r.format ?? NOT_RECORDED}</td><td class="hash">${r.sha256 ? h`<code>${r.sha256}</code>` : NOT_RECORDED}</td><td>${r.dataset ?? NOT_RECORDED}</td><td class="wrap">${generatorText(r.generator)}</td><td>${r.modified}</td></tr>`
  })}</tbody></table>`
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path
}

function machine(env: ResultEnvelope): Html {
  const d = env.device
  return keyValues([
    ['machine', env.host.os],
    ['CPU', `${env.host.cpu}, ${env.host.cores} threads`],
    ['memory', bytesText(env.host.memoryBytes)],
    ['Node.js', env.host.node],
    ['GPU adapter', d ? `${d.adapter}${d.vendor ? ` (${d.vendor})` : ''}, ${d.backend}${d.software ? ', software adapter' : ''}` : 'no GPU ran'],
    ['Paralab', env.paralabVersion],
    ['source commit', env.paralabCommit ? h`<code>${env.paralabCommit}</code>` : NOT_RECORDED],
  ])
}

function timingsTable(env: ResultEnvelope): Html {
  const entries = Object.entries(env.timings)
  if (!entries.length) return h`<p>No timed runs.</p>`
  return h`<table><thead><tr><th>run</th><th class="num">median</th><th class="num">least</th><th class="num">greatest</th><th class="num">runs</th></tr></thead><tbody>${entries.map(
    ([key, t]) => h`<tr><td class="wrap">${key}</td><td class="num">${ms(t.median)}</td><td class="num">${ms(t.min)}</td><td class="num">${ms(t.max)}</td><td class="num">${t.runs}</td></tr>`,
  )}</tbody></table>`
}

/** A run's input as the tables show it: each file's name (the landslide's runs name several, joined by commas). */
const inputName = (input: string) => (input ? input.split(', ').map(baseName).join(', ') : '—')

const runName = (r: ComparableRun) => [r.backend, r.variant].filter(Boolean).join(' ')

function runsTable(runs: ComparableRun[]): Html {
  if (!runs.length) return h`<p>No timed runs.</p>`
  return h`<table><thead><tr><th>input</th><th>run</th><th class="num">median</th><th>work</th><th>checks</th></tr></thead><tbody>${runs.map(
    (r) =>
      h`<tr><td class="wrap">${inputName(r.input)}</td><td>${runName(r)}</td><td class="num">${ms(r.timing.median)}${r.compile_ms !== undefined ? h`<br><span class="none">compile ${ms(r.compile_ms)}</span>` : ''}</td><td>${formatNumber(r.work.count, 6)} ${r.work.unit}s</td><td class="wrap">${r.checks.map((c) => h`<span class="check">${c.name}: <code>${c.value}</code></span> `)}</td></tr>`,
  )}</tbody></table>`
}

/** For each input and check, whether the runs agree: one value for all, or which run gave which. */
function agreementTable(runs: ComparableRun[]): Html {
  const groups = new Map<string, { input: string; check: string; values: Map<string, string[]> }>()
  for (const r of runs)
    for (const c of r.checks) {
      const key = JSON.stringify([r.input, c.name])
      const g = groups.get(key) ?? { input: r.input, check: c.name, values: new Map() }
      g.values.set(c.value, [...(g.values.get(c.value) ?? []), runName(r)])
      groups.set(key, g)
    }
  const rows = [...groups.values()].filter((g) => [...g.values.values()].flat().length > 1)
  if (!rows.length) return h`<p>One run per input: nothing to compare between backends.</p>`
  return h`<table><thead><tr><th>input</th><th>check</th><th>between the runs</th></tr></thead><tbody>${rows.map((g) => {
    const n = [...g.values.values()].flat().length
    const verdict =
      g.values.size === 1
        ? h`<span class="agree">agree</span>: all ${n} runs give <code>${[...g.values.keys()][0]}</code>`
        : h`<span class="differ">differ</span>: ${[...g.values].map(([v, who]) => h`<code>${v}</code> (${who.join(', ')}) `)}`
    return h`<tr><td class="wrap">${inputName(g.input)}</td><td>${g.check}</td><td class="wrap">${verdict}</td></tr>`
  })}</tbody></table>`
}

function resultTable(t: ResultTable): Html {
  const shown = t.rows.slice(0, MAX_TABLE_ROWS)
  const wide = t.columns.length > WIDE_TABLE_COLUMNS
  const td = (v: unknown) => h`<td class="${typeof v === 'number' ? 'num' : 'wrap'}">${cell(v)}</td>`
  // A few rows of many columns read best turned: a line per column, a column per row.
  const table =
    wide && shown.length <= TURNED_TABLE_ROWS
      ? h`<table class="turned"><tbody>${t.columns.map((c, j) => h`<tr><th scope="row">${c}</th>${shown.map((row) => td(row[j]))}</tr>`)}</tbody></table>`
      : h`<table class="${wide ? 'wide' : ''}"><thead><tr>${t.columns.map((c) => h`<th>${c}</th>`)}</tr></thead><tbody>${shown.map((row) => h`<tr>${row.map(td)}</tr>`)}</tbody></table>`
  return h`<section class="table" data-table="${t.name}"><h3>${t.name}</h3>${t.note ? h`<p class="note">${t.note}</p>` : ''}${table}${t.rows.length > shown.length ? h`<p class="note">The first ${shown.length} of ${t.rows.length} rows; the envelope at the end of this file holds them all.</p>` : ''}</section>`
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}

const STYLE = `
@page { size: A4; margin: 14mm 12mm; }
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 10.5pt/1.4 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1b1f24; margin: 0 auto; padding: 16px; max-width: 1100px; }
h1 { font-size: 18pt; margin: 0 0 4px; }
h2 { font-size: 13pt; margin: 22px 0 6px; border-bottom: 1px solid #d0d7de; padding-bottom: 2px; break-after: avoid; }
h3 { font-size: 11pt; margin: 14px 0 4px; break-after: avoid; }
p { margin: 4px 0; }
.lead { color: #57606a; }
.partial { background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 8px; border-radius: 4px; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; font-size: 9pt; }
th, td { border: 1px solid #d0d7de; padding: 2px 5px; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
th, td { overflow-wrap: anywhere; word-break: break-word; }
/* A table of many columns fits the page's width: smaller, and its cells break anywhere. */
table.wide { font-size: 7pt; }
table.wide th, table.wide td { padding: 1px 2px; word-break: break-all; }
table.turned th { background: #f6f8fa; width: 11em; }
table.kv { width: auto; min-width: 60%; }
table.kv th { background: #f6f8fa; white-space: nowrap; width: 12em; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 8.5pt; }
td.hash code { font-size: 7.5pt; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: 6px 8px; white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-all; }
.none { color: #6e7781; font-style: italic; }
.note { color: #57606a; font-size: 9pt; }
.agree { color: #1a7f37; font-weight: 600; }
.differ { color: #9a6700; font-weight: 600; }
.check { display: inline-block; }
figure { margin: 8px 0 14px; break-inside: avoid; page-break-inside: avoid; }
figure svg, figure img { display: block; width: 100%; max-width: 100%; height: auto; }
figure img.picture { width: auto; max-height: 240mm; }
figcaption { font-size: 9pt; color: #57606a; }
footer { margin-top: 24px; font-size: 8.5pt; color: #6e7781; }
@media print {
  body { padding: 0; max-width: none; font-size: 9.5pt; }
  figure svg { max-height: 170mm; }
  a { color: inherit; text-decoration: none; }
}
`

export function reportHtml(p: ReportParts): string {
  const env = p.envelope
  const def = workload(env.workload)
  const partial = partialNote(env)
  const ran = [...new Set(p.runs.map(runName))]
  const body = h`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Paralab ${p.madeBy.version}">
<title>${def.title} run of ${env.createdAt} — Paralab report</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<header>
<h1>${def.title}: a Paralab run</h1>
<p class="lead">${def.summary}</p>
<p>Run at <time datetime="${env.createdAt}">${env.createdAt}</time> by Paralab ${env.paralabVersion}.</p>
${partial ? h`<p class="partial" id="partial">${partial}. This report holds what had finished.</p>` : ''}
</header>
<section id="asked">
<h2>What was asked</h2>
${keyValues([
  ['workload', h`${def.title} <code>${def.id}</code>`],
  ['backends and variants run', ran.length ? ran.join(', ') : NOT_RECORDED],
])}
${paramsTable(env)}
</section>
<section id="inputs">
<h2>On what</h2>
${inputsTable(env.input.files)}
</section>
<section id="where">
<h2>Where</h2>
${machine(env)}
</section>
<section id="time">
<h2>How long it took</h2>
<p class="note">Milliseconds of each backend's timed runs, input already loaded; kernel compilation is apart.</p>
${timingsTable(env)}
</section>
<section id="checks">
<h2>Checks</h2>
<p class="note">Each timed run's result checks (md5 of exact results, the deviation of reduced precision from f64), and whether the runs agree on each.</p>
${runsTable(p.runs)}
<h3>Agreement between backends</h3>
${agreementTable(p.runs)}
</section>
<section id="results">
<h2>What came out</h2>
${p.tables.map(resultTable)}
${p.charts.map((c) => h`<figure class="chart" data-chart="${c.name}">${new Html(c.svg)}<figcaption>${c.title} <code>${c.name}</code></figcaption></figure>`)}
${p.images.map((i) => h`<figure class="image" data-image="${i.name}"><img class="picture" alt="${i.name}" src="data:image/png;base64,${base64(i.png)}"><figcaption><code>${i.name}</code></figcaption></figure>`)}
</section>
<section id="again">
<h2>Run it again</h2>
<pre><code>${p.command.line}</code></pre>
${p.command.relative ? h`<p class="note">Its input files are given relative to the folder the run was started in: run it from there.</p>` : ''}
</section>
<footer>Report written ${p.madeBy.at.toISOString()} by Paralab ${p.madeBy.version}${p.madeBy.commit ? ` (${p.madeBy.commit})` : ''}. The run's full result envelope is embedded in this file as JSON (script element <code>paralab-envelope</code>).</footer>
<script type="application/json" id="paralab-envelope">${new Html(scriptJson(env))}</script>
</body>
</html>
`
  return body.text
}
