// A run's report (src/main/report): made from a real run's envelope, it holds every part the
// report promises with every string from the envelope escaped, and the envelope itself embedded so
// that it parses back unchanged; an envelope edited so that it contradicts itself, or names a path
// outside what it names, is refused naming the field.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import { workload } from '../../src/shared/workloads'
import { Backend } from '../../src/main/backend/backend'
import { ENGINES } from '../../src/main/workloads'
import { checkEnvelope } from '../../src/main/report/check-envelope'
import { escapeHtml, inlineSvg, scriptJson } from '../../src/main/report/html'
import { makeReport } from '../../src/main/report/make-report'
import { reportHtml } from '../../src/main/report/report-html'
import { rerunCommand } from '../../src/main/report/rerun-command'
import { failure } from '../helpers/failure'

const dir = mkdtempSync(join(tmpdir(), 'paralab-report-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A folder and file name that would be markup, end a script block or a quoted attribute, if pasted. */
const HOSTILE_DIR = join(dir, 'a</script><script>window.pwned=1</script><!--')
const HOSTILE_NAME = `q'"&<b>x.csv`
/** A column name, which becomes table cells, check names and the charts' legends. */
const HOSTILE_COLUMN = 'x</script><svg onload=alert(1)>'
let input: string
let envelope: ResultEnvelope
const engine = ENGINES.find((e) => e.definition.id === 'stats')!

beforeAll(async () => {
  mkdirSync(HOSTILE_DIR, { recursive: true })
  input = join(HOSTILE_DIR, HOSTILE_NAME)
  writeFileSync(input, `${HOSTILE_COLUMN},acc_y\n1,2\n3,5\n4,4\n2,8\n`)
  const backend = new Backend({ engines: ENGINES })
  envelope = await backend.jobs.result(backend.startJob('stats', { files: [input], columns: [HOSTILE_COLUMN, 'acc_y'], backends: ['serial', 'simd'], repeat: 2, batches: 2 }))
})

const copy = (): any => structuredClone(envelope)
const embedded = (html: string) => JSON.parse(/<script type="application\/json" id="paralab-envelope">([\s\S]*?)<\/script>/.exec(html)![1])

describe('escaping', () => {
  it('escapes markup and quotes in text and attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;')
  })

  it('keeps </script>, <!-- and line separators out of a JSON block, and parses back unchanged', () => {
    const value = { s: '</script><script>alert(1)</script>', c: '<!-- -->', l: 'a\u2028b\u2029c', amp: 'x&y' }
    const text = scriptJson(value)
    expect(text).not.toMatch(/[<>&\u2028\u2029]/)
    expect(JSON.parse(text)).toEqual(value)
  })

  it('inlines an SVG of drawing elements only', () => {
    const ok = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><g><path d="M0 0"/><text>a &lt; b</text></g></svg>'
    expect(inlineSvg(ok, 'c')).toBe(ok.replace('<?xml version="1.0"?>', ''))
    // Text that merely reads like markup (escaped by the exporter) is text.
    const text = '<svg><text x="1, 2" font-family="a &gt; b">x&lt;/script&gt;&lt;svg onload=alert(1)&gt;</text></svg>'
    expect(inlineSvg(text, 'c')).toBe(text)
    expect(() => inlineSvg('<svg><script>alert(1)</script></svg>', 'c')).toThrow('chart c: its SVG holds a <script> element, which a report does not inline')
    expect(() => inlineSvg('<svg><foreignObject><div/></foreignObject></svg>', 'c')).toThrow('<foreignObject> element')
    expect(() => inlineSvg('<svg onload="alert(1)"></svg>', 'c')).toThrow('event handler attribute (onload)')
    expect(() => inlineSvg('<svg><g ONCLICK=\'x\'/></svg>', 'c')).toThrow('event handler attribute (ONCLICK)')
    expect(() => inlineSvg('<svg><image href="https://example.org/x.png"/></svg>', 'c')).toThrow('refers to "https://example.org/x.png"')
    expect(() => inlineSvg('<svg><use xlink:href="file:///etc/passwd"/></svg>', 'c')).toThrow('refers to "file:///etc/passwd"')
    expect(() => inlineSvg('<svg><rect style="fill:url(https://x.org/a)"/></svg>', 'c')).toThrow('url()')
    expect(() => inlineSvg('<svg><rect x=1 onload=alert(1)/></svg>', 'c')).toThrow('no plain tag')
  })
})

describe('a report of a real run', () => {
  let html: string
  beforeAll(async () => {
    html = await makeReport(envelope, { engine })
  })

  it('states a strict policy and runs no script: its one script element is the envelope, as JSON', () => {
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; img-src data:; style-src &#39;unsafe-inline&#39;">/)
    expect(html.match(/<script/gi)).toEqual(['<script'])
    expect(html.match(/<\/script/gi)).toEqual(['</script'])
    expect(embedded(html)).toEqual(envelope)
    // Nothing to fetch: no src or href but data: images and the SVGs' own references.
    for (const m of html.matchAll(/\s(?:src|href)="([^"]*)"/g)) expect(m[1]).toMatch(/^(data:image\/png;base64,|#)/)
  })

  it('shows the hostile file name as text, never as markup', () => {
    expect(html).not.toContain('<script>window.pwned')
    expect(html).not.toContain('<b>x.csv')
    expect(html).not.toContain('<svg onload')
    expect(html).toContain(`<td class="wrap">${escapeHtml(HOSTILE_COLUMN)}</td>`)
    expect(html).toContain(`${escapeHtml(HOSTILE_COLUMN)} CV</td><td class="wrap"><span class="agree">agree</span>`)
    expect(html).toContain(escapeHtml(input))
    expect(html).toContain(`<strong>${escapeHtml(HOSTILE_NAME)}</strong>`)
  })

  it('holds what was asked, the inputs, where, how long, the checks, every table and chart, and the command', () => {
    for (const id of ['asked', 'inputs', 'where', 'time', 'checks', 'results', 'again']) expect(html).toContain(`<section id="${id}">`)
    expect(html).toContain('serial, simd')
    expect(html).toContain(`${envelope.input.files[0].bytes} bytes`)
    expect(html).toContain(escapeHtml(envelope.host.cpu))
    // The input's sha256, as the run recorded it while reading the file.
    const sha = envelope.input.files[0].sha256
    expect(sha).toMatch(/^[0-9a-f]{64}$/)
    expect(html).toContain(sha!)
    for (const key of Object.keys(envelope.timings)) expect(html).toContain(`<td class="wrap">${key}</td>`)
    // Both backends give the same CV and MAD, bit for bit: the report says they agree.
    expect(html).toMatch(/acc_y CV<\/td><td class="wrap"><span class="agree">agree<\/span>: all 2 runs give/)
    const def = workload('stats')
    for (const t of def.tables(envelope.results as never)) expect(html).toContain(`<h3>${t.name}</h3>`)
    const charts = def.charts(envelope.results as never, envelope as never)
    expect([...html.matchAll(/<figure class="chart" data-chart="([^"]+)"><svg /g)].map((m) => m[1])).toEqual(charts.map((c) => escapeHtml(c.name)))
  })

  it('gives the command that runs it again, each word as a shell reads it back', () => {
    const { line, relative } = rerunCommand(envelope)
    expect(relative).toBe(false)
    expect(html).toContain(`<pre><code>${escapeHtml(line)}</code></pre>`)
    const words = execFileSync('bash', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' }).trimEnd().split('\n')
    expect(words).toEqual(['paralab', 'stats', `--columns=${HOSTILE_COLUMN},acc_y`, '--backend=serial,simd', '--precision=f64', '--repeat=2', '--batches=2', '--', input])
  })

  it('sets a table of many columns to fit the page: a few rows turned, a line per column; many rows small', () => {
    const columns = Array.from({ length: 12 }, (_, i) => `c${i}`)
    const table = (rows: number) => ({ name: `t${rows}`, columns, rows: Array.from({ length: rows }, (_, r) => columns.map((_, c) => r * 100 + c)) })
    const out = reportHtml({ envelope, tables: [table(2), table(40)], charts: [], images: [], runs: [], command: rerunCommand(envelope), madeBy: { version: '0', at: new Date() } })
    expect(out).toContain('<section class="table" data-table="t2"><h3>t2</h3><table class="turned"><tbody><tr><th scope="row">c0</th><td class="num">0</td><td class="num">100</td></tr>')
    expect(out).toContain('<section class="table" data-table="t40"><h3>t40</h3><table class="wide"><thead><tr><th>c0</th>')
    expect(out.match(/<tr><td class="num">\d+<\/td>/g)).toHaveLength(40)
  })

  it('says a cancelled run\'s report holds what had finished', async () => {
    const out = await makeReport({ ...copy(), partial: true, missing: ['simd'] })
    expect(out).toContain('<p class="partial" id="partial">Partial: missing simd. This report holds what had finished.</p>')
  })

  it('renders the provenance fields an input records, where recorded', async () => {
    const env = copy()
    Object.assign(env.input.files[0], { sha256: 'ab'.repeat(32), dataset: '/g/<d>', generator: { name: 'acc', parameters: { rows: 4 }, seed: 7 } })
    const out = await makeReport(env)
    expect(out).toContain(`<code>${'ab'.repeat(32)}</code>`)
    expect(out).toContain('/g/&lt;d&gt;')
    expect(out).toContain('acc <code>{&quot;rows&quot;:4}</code>, seed 7')
    expect(out).not.toContain('not recorded</span></td><td')
  })
})

describe('a tampered envelope', () => {
  const cases: [string, (e: any) => void, RegExp][] = [
    ['a timing whose least is above its median', (e) => (Object.values(e.timings as Record<string, any>)[0].min = 1e9), /^x\.json: timings\["serial"\]\.min \(1000000000 ms\) is above its median/],
    ['a timing of one run with a spread', (e) => Object.assign(Object.values(e.timings as Record<string, any>)[0], { runs: 1 }), /timings\["serial"\]\.runs is 1, but its least, median and greatest .* differ/],
    ['a negative size', (e) => (e.input.files[0].bytes = -1), /^x\.json: input\.files\[0\]\.bytes must be a whole number ≥ 0; got -1$/],
    ['an input path through ..', (e) => (e.input.files[0].path = '/data/../etc/passwd'), /input\.files\[0\]\.path "\/data\/\.\.\/etc\/passwd" is not a resolved path: it steps through "\." or "\.\.", outside the folder it names/],
    ['a relative input path', (e) => (e.input.files[0].path = 'etc/passwd'), /input\.files\[0\]\.path must be the absolute path the run read/],
    ['results naming a file the envelope does not list', (e) => (e.results.files[0].path = '/etc/shadow'), /results \(run 1: serial on \/etc\/shadow\) names the input "\/etc\/shadow", which is neither in params nor in input\.files/],
    ['a parameter out of range', (e) => (e.params.repeat = 0), /params do not fit stats's parameters: .*repeat/],
    ['an unknown workload', (e) => (e.workload = 'rm -rf'), /^x\.json: workload must be one of .*; got "rm -rf"$/],
    ['a sha256 that is no hash', (e) => (e.input.files[0].sha256 = 'zz'), /input\.files\[0\]\.sha256 must be 64 lowercase hex digits; got "zz"/],
    ['a kept file outside its folder', (e) => (e.kept = { run: '20261202T091236312Z-stats-0a1b2c3d', files: ['../../.ssh/id_rsa'] }), /kept\.files\[0\] must be a plain file name inside the run's folder/],
    ['missing runs in a whole run', (e) => (e.missing = ['gpu']), /missing names runs that did not finish, but the run is not marked partial/],
    ['an edited time', (e) => (e.createdAt = 'yesterday'), /createdAt must be an ISO 8601 time/],
    ['results that are not the workload\'s', (e) => (e.results = { files: 3 }), /^x\.json: /],
    ['no envelope at all', () => undefined, /^x\.json: /],
  ]
  it.each(cases)('%s is refused, naming the field', async (_, edit, message) => {
    const env = copy()
    const edited = edit(env) === undefined && _ === 'no envelope at all' ? null : env
    expect(() => checkEnvelope(edited, 'x.json')).toThrow(message)
    const err = await failure(makeReport(edited, { source: 'x.json' }))
    expect(err.message).toMatch(message)
    expect((err as { code?: string }).code).toBe('invalid-input')
  })

  it('the untouched envelope passes', () => {
    expect(checkEnvelope(copy(), 'x.json')).toEqual(envelope)
  })
})
