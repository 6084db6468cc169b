// `paralab rerun`: a recorded run made again agrees with itself (exit 0) for each workload, from a
// results.json or from a report's envelope element; a tampered envelope (an edited number, a path
// outside what its parameters name, a replaced input, a wrong field) is refused naming the field or
// file, exit 1, and an input whose sha256 differs stops it before anything runs.
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agreement, F32_BOUND } from '../../src/shared/workloads/agreement'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import { errorLines, jsonOf, paralab } from '../e2e/paralab'

const dir = mkdtempSync(join(tmpdir(), 'paralab-rerun-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const env = { PARALAB_GPU: 'off', PARALAB_EXAMPLES: at('examples') }
const run = (args: string[]) => paralab(args, env, 180_000, dir)
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

/** The envelope written to `name` after `edit`. */
function tampered(from: string, name: string, edit: (e: any) => void): string {
  const e = JSON.parse(readFileSync(from, 'utf8'))
  edit(e)
  writeFileSync(at(name), JSON.stringify(e))
  return at(name)
}

let stats: string
beforeAll(() => {
  expect(run(['generate', 'acc', 'acc.csv', '--rows', '3000', '--seed', '4']).code).toBe(0)
  // Given as a relative path, as people type it; the envelope records the real path beside it.
  expect(run(['stats', 'acc.csv', '--backend', 'serial,workers', '--precision', 'f64', '--repeat', '1', '--out', 'stats']).code).toBe(0)
  stats = at('stats/results.json')
}, 120_000)

describe('paralab rerun agrees with the run it makes again', () => {
  it('statistics: every value bit for bit, the input named with its sha256', () => {
    const r = run(['rerun', stats])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`acc.csv  sha256 ${sha256(at('acc.csv'))}  ${at('acc.csv')}`)
    expect(r.stdout).toMatch(/The results agree: \d+ values bit for bit; times not compared\./)
    expect(r.stdout).toContain('The same machine, device and build as the first run.')
  })

  it('shortest paths, leaving out --output (it writes a file)', () => {
    expect(run(['generate', 'graph', 'g.bin', '--vertices', '40', '--edges', '200', '--seed', '2']).code).toBe(0)
    expect(run(['paths', 'g.bin', '--backend', 'serial,blocked', '--repeat', '1', '--output', 'dist.bin', '--out', 'paths']).code).toBe(0)
    rmSync(at('dist.bin'))
    const r = jsonOf(run(['rerun', 'paths/results.json', '--json']))
    expect([r.agree, r.differences, r.leftOut]).toEqual([true, [], ['output']])
    expect(r.exact).toBeGreaterThan(10)
    expect(existsSync(at('dist.bin'))).toBe(false)
  })

  it('the landslide (its md5) and correlation, from a report holding the envelope', () => {
    expect(run(['generate', 'slope', 'dem.asc', 'source.asc', '--rows', '16', '--cols', '20', '--seed', '3']).code).toBe(0)
    expect(run(['landslide', 'dem.asc', 'source.asc', '--backend', 'serial,active', '--steps', '30', '--repeat', '1', '--out', 'landslide']).code).toBe(0)
    const envelope = readFileSync(at('landslide/results.json'), 'utf8')
    // As a report embeds it: JSON with `<` escaped, inside a script element of type application/json.
    writeFileSync(at('report.html'), `<!doctype html><html><head><script>alert(1)</script></head><body><p>a report</p><script type="application/json" id="paralab-envelope">${envelope.replace(/</g, '\\u003c')}</script></body></html>`)
    const r = jsonOf(run(['rerun', 'report.html', '--json']))
    expect([r.agree, r.differences]).toEqual([true, []])
    expect(r.envelope.results.runs.serial.md5).toBe(JSON.parse(envelope).results.runs.serial.md5)
    expect(run(['generate', 'walks', 'walks.csv', '--series', '12', '--length', '300', '--seed', '5']).code).toBe(0)
    expect(run(['correlation', 'walks.csv', '--backend', 'serial,simd', '--repeat', '1', '--out', 'correlation']).code).toBe(0)
    expect(jsonOf(run(['rerun', 'correlation/results.json', '--json'])).agree).toBe(true)
  })
})

describe('a tampered envelope or input is named, exit 1', () => {
  it('an edited result: the table, row and column, with both values', () => {
    const file = tampered(stats, 'edited.json', (e) => {
      const [column] = Object.keys(e.results.files[0].columns)
      e.results.files[0].columns[column].median += 1e-9
    })
    const r = run(['rerun', file])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('The results do not agree (1 difference;')
    expect(r.stdout).toMatch(/table results, row 1 \(file .*acc\.csv, backend reference, column acc_x, .*precision f64\), column median: \S+ in the envelope, \S+ now \(an exact result: bit for bit\)/)
  })

  it('an input replaced since the run: named with both sha256, before anything runs', () => {
    copyFileSync(at('acc.csv'), at('acc-copy.csv'))
    expect(run(['stats', 'acc-copy.csv', '--backend', 'serial', '--repeat', '1', '--out', 'copy']).code).toBe(0)
    const was = sha256(at('acc-copy.csv'))
    writeFileSync(at('acc-copy.csv'), readFileSync(at('acc-copy.csv'), 'utf8').replace('1', '2'))
    expect(sha256(at('acc-copy.csv'))).not.toBe(was)
    const r = run(['rerun', 'copy/results.json'])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: ${at('acc-copy.csv')}: its sha256 is ${sha256(at('acc-copy.csv'))}, not the ${was} the envelope records: the file was replaced or changed since the run`])
    expect(r.stderr).not.toMatch(/loading/)
  })

  it('an input path outside what the parameters name, even with its own sha256', () => {
    writeFileSync(at('other.csv'), 'acc_x\n1\n')
    const file = tampered(stats, 'outside.json', (e) => {
      e.input.files[0].path = at('other.csv')
      e.input.files[0].sha256 = sha256(at('other.csv'))
    })
    const r = run(['rerun', file])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: ${file}: input.files[0].path ${at('other.csv')} is not the file params.files[0] names (acc.csv): the envelope was edited`])
  })

  it('an input that is now a link elsewhere', () => {
    copyFileSync(at('acc.csv'), at('linked.csv'))
    expect(run(['stats', 'linked.csv', '--backend', 'serial', '--repeat', '1', '--out', 'linked']).code).toBe(0)
    rmSync(at('linked.csv'))
    symlinkSync(at('acc.csv'), at('linked.csv'))
    const r = run(['rerun', 'linked/results.json'])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: ${at('linked.csv')} is now a link to ${at('acc.csv')}, not the file the run read`])
  })

  it.each([
    ['workload', (e: any) => (e.workload = 'rm -rf'), 'workload "rm -rf" is not a workload this paralab knows'],
    ['params', (e: any) => (e.params.repeat = -5), 'params: stats: parameter repeat must be an integer in 1…1000; got -5'],
    ['an unknown parameter', (e: any) => (e.params.shell = 'x'), 'params: stats: unknown parameter "shell"'],
    ['sha256', (e: any) => (e.input.files[0].sha256 = 'ABC'), 'input.files[0].sha256 "ABC" is not 64 lowercase hexadecimal digits'],
    ['a missing sha256', (e: any) => delete e.input.files[0].sha256, 'input.files[0].sha256 is missing'],
    ['a path', (e: any) => (e.input.files[0].path = 42), 'input.files[0].path is not a path'],
    ['the files', (e: any) => (e.params.files = ['acc.csv', 'acc.csv']), 'params.files names 2 files, and input.files records 1 read'],
    ['partial', (e: any) => (e.partial = true), 'partial is true'],
    ['results', (e: any) => (e.results = []), 'results is not an object'],
  ])('a wrong %s is named', (name, edit, message) => {
    const file = tampered(stats, `wrong-${name.replace(/\W/g, '-')}.json`, edit)
    const r = run(['rerun', file])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([expect.stringContaining(`paralab: ${file}: ${message}`)])
  })

  it('refuses what is no envelope: not JSON, a FIFO, a report without (or with two) envelope elements', () => {
    writeFileSync(at('not.json'), '{"workload": ')
    execFileSync('mkfifo', [at('fifo.json')])
    writeFileSync(at('none.html'), '<!doctype html><p>no envelope</p>')
    const element = `<script type="application/json" id="paralab-envelope">${readFileSync(stats, 'utf8')}</script>`
    writeFileSync(at('two.html'), `<!doctype html>${element}${element}`)
    writeFileSync(at('typed.html'), `<!doctype html>${element.replace('application/json', 'text/javascript')}`)
    const lines = ['not.json', 'fifo.json', 'none.html', 'two.html', 'typed.html'].map((f) => {
      const r = run(['rerun', f])
      expect(r.code).toBe(1)
      return errorLines(r.stderr)[0]
    })
    expect(lines).toEqual([
      expect.stringMatching(/^paralab: not\.json: not JSON \(/),
      'paralab: fifo.json is a named pipe (FIFO), not a file Paralab wrote',
      'paralab: none.html: no <script type="application/json" id="paralab-envelope"> element: not a Paralab report',
      'paralab: two.html: 2 paralab-envelope elements, where a report has one',
      'paralab: typed.html: the paralab-envelope element is not of type application/json',
    ])
  })
})

describe('agreement', () => {
  let f32: ResultEnvelope
  beforeAll(() => {
    f32 = jsonOf(run(['stats', 'acc.csv', '--backend', 'serial', '--precision', 'f32', '--repeat', '1', '--json']))
  }, 60_000)
  const nudged = (by: number, cpu?: string): ResultEnvelope => {
    const e = structuredClone(f32) as any
    e.results.files[0].backends.serial.columns.acc_x.median *= 1 + by
    if (cpu) e.host.cpu = cpu
    return e
  }

  it('takes f32 values within the bound, refuses them beyond it, naming the row; an exact f64 value must be the same bits', () => {
    const within = agreement(f32, nudged(F32_BOUND.relative / 10))
    expect([within.agree, within.bounded]).toEqual([true, 1])
    const beyond = agreement(f32, nudged(F32_BOUND.relative * 10))
    expect(beyond.agree).toBe(false)
    expect(beyond.differences).toEqual([expect.stringMatching(/^table results, row \d+ \(.*precision f32\), column median: .* \(beyond the f32 bound 0\.000001 \+ 0\.001·\|value\|\)$/)])
  })

  it('names the rows a backend did not make again (a GPU missing here)', () => {
    const fewer = structuredClone(f32) as any
    delete fewer.results.files[0].backends.serial
    const a = agreement(f32, fewer)
    expect(a.agree).toBe(false)
    expect(a.differences).toEqual([expect.stringMatching(/^table results: \d+ rows in the envelope, \d+ now; not made again: .*backend serial, column acc_x, .*precision f32/)])
  })

  it('names the machine that differs without calling it a disagreement, and compares no times', () => {
    const other = nudged(0, 'Another CPU')
    ;(other as any).results.files[0].load_ms = 1e9
    const a = agreement(f32, other)
    expect(a.agree).toBe(true)
    expect(a.machine).toEqual([`CPU: ${f32.host.cpu} then, Another CPU now`])
  })
})
