// Shortest paths against hostile graphs, through the CLI and `paralab serve`: distances beyond
// int32 are refused with their pair by every CPU backend (GPU variants: test/gpu), an 8-byte file
// announcing 12 000 vertices is computed off the main thread (pings answered, cancel within 1 s,
// Ctrl-C honoured), and runs started then cancelled do not pile up memory.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'
import { connectApi, serveRss, worstPingMs, type ApiClient } from '../helpers/api-client'
import { errorLines, jsonOf, paralab } from './paralab'

const CPU = 'serial,blocked,simd,workers,workers-simd'
let root: string
let data: string
let serve: ServeProcess
let api: ApiClient

/** The course's binary format: V, E, then E × (src, dst, w), int32 little-endian. */
function header(V: number): Buffer {
  const b = Buffer.alloc(8)
  b.writeInt32LE(V, 0)
  return b
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'paralab-hardening-paths-'))
  data = join(root, 'data')
  mkdirSync(data)
  const arcs = (lines: string[]) => lines.map((l) => `a ${l}\n`).join('')
  writeFileSync(join(data, 'down.gr'), `p sp 4 3\n${arcs(['1 2 -1073741823', '2 3 -1073741823', '3 4 -1073741823'])}`)
  writeFileSync(join(data, 'updown.gr'), `p sp 4 6\n${arcs(['1 2 -1073741823', '2 3 -1073741823', '3 4 -1073741823', '2 1 1073741823', '3 2 1073741823', '4 3 1073741823'])}`)
  writeFileSync(join(data, 'inf.gr'), `p sp 2 2\n${arcs(['1 2 -1073741823', '2 1 1073741823'])}`)
  writeFileSync(join(data, 'low.gr'), `p sp 3 2\n${arcs(['1 2 -1073741823', '2 3 -1073741823'])}`)
  writeFileSync(join(data, 'empty12k.bin'), header(12_000))
  serve = await startServe(['--data', data])
  api = await connectApi(serve)
})
afterAll(async () => {
  api?.close()
  await serve?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('distances beyond int32', () => {
  it.each([
    ['down.gr', 'from 1 to 4 is -3221225469'],
    ['updown.gr', 'from 1 to 4 is -3221225469'],
    ['inf.gr', 'from 2 to 1 is 1073741823'],
  ])('%s is refused by every CPU backend, naming the pair (%s)', (name, pair) => {
    const r = paralab(['paths', join(data, name), '--backend', CPU, '--block', '8', '--repeat', '1'])
    expect(r.code, r.stderr).toBe(1)
    expect(errorLines(r.stderr)).toEqual([
      `paralab: ${join(data, name)}: the shortest distance ${pair}, outside the int32 distances the matrix holds (-2147483648 … 1073741822; 1073741823 means unreachable)`,
    ])
  })

  it('a distance of −2147483646 is kept, the same on every CPU backend', () => {
    const env = jsonOf(paralab(['paths', join(data, 'low.gr'), '--backend', CPU, '--block', '8', '--repeat', '1', '--from', '1', '--to', '3', '--json']))
    const g = env.results.graphs[0]
    expect(g.query).toEqual({ from: '1', to: '3', path: ['1', '2', '3'], length: -2147483646 })
    expect(g.minDistance).toBe(-2147483646)
    expect(g.runs.map((r: { matches: boolean }) => r.matches)).toEqual([true, true, true, true, true])
  })
})

describe('CSV matrices', () => {
  it('write vertex names a spreadsheet would run as formulas as text, in the distances and the successors', () => {
    const graph = join(root, 'formulas.csv')
    writeFileSync(graph, 'source,target,weight\n=1+1,@x,3\n@x,+cmd,4\n+cmd,-2,1\n')
    const out = join(root, 'dist.csv')
    jsonOf(paralab(['paths', graph, '--backend', 'serial', '--repeat', '1', '--paths', '--output', out, '--format', 'csv', '--force', '--json']))
    expect(readFileSync(out, 'utf8')).toBe(
      ["distance from \\ to,'=1+1,'@x,'+cmd,-2", "'=1+1,0,3,7,8", "'@x,,0,4,5", "'+cmd,,,0,1", "-2,,,,0", ''].join('\n'),
    )
    expect(readFileSync(join(root, 'dist.next.csv'), 'utf8')).toBe(
      ["next hop from \\ to,'=1+1,'@x,'+cmd,-2", "'=1+1,'=1+1,'@x,'@x,'@x", "'@x,,'@x,'+cmd,'+cmd", "'+cmd,,,'+cmd,-2", "-2,,,,-2", ''].join('\n'),
    )
  })
})

describe('an 8-byte graph of 12 000 vertices under serve', () => {
  const start = (backend: string) => api.call<string>('startJob', 'paths', { files: [join(data, 'empty12k.bin')], backends: [backend], repeat: 1 })
  const cancelled = async (jobId: string) => {
    const t0 = performance.now()
    await api.call('cancelJob', jobId)
    const e = await api.event((e) => e.jobId === jobId && e.type !== 'progress', 10_000)
    expect(e.type).toBe('failed')
    expect(e.error.code).toBe('cancelled')
    return performance.now() - t0
  }

  it.each(['serial', 'blocked', 'simd'])('%s: pings answered within 1 s while it runs, cancelled within 1 s', async (backend) => {
    const jobId = await start(backend)
    await api.event((e) => e.jobId === jobId && e.type === 'progress' && e.phase.startsWith(backend), 30_000)
    expect(await worstPingMs(api, 3000)).toBeLessThan(1000)
    expect(await cancelled(jobId)).toBeLessThan(1000)
  })

  it('four runs started then cancelled leave the memory of at most one', async () => {
    // Each run fills a 576 MB matrix on its thread; the thread and its matrix go on cancel.
    const MATRIX = 12_000 * 12_000 * 4
    const rss: number[] = []
    const before = serveRss()
    for (let i = 0; i < 4; i++) {
      const jobId = await start('serial')
      await api.event((e) => e.jobId === jobId && e.type === 'progress' && e.phase.startsWith('serial'), 30_000)
      await new Promise((r) => setTimeout(r, 500))
      await cancelled(jobId)
      // The thread's end frees its matrix, on a busy machine a while after the cancel's reply: up to 5 s.
      const until = Date.now() + 5000
      do await new Promise((r) => setTimeout(r, 300))
      while (serveRss() >= before + MATRIX / 4 && Date.now() < until)
      rss.push(serveRss())
    }
    expect(Math.max(...rss), rss.join(', ')).toBeLessThan(rss[0] + MATRIX / 2)
    expect(Math.max(...rss), rss.join(', ')).toBeLessThan(MATRIX)
  })
})

describe('an 8-byte graph beyond the memory available', () => {
  it('is refused at once, before any matrix is allocated, naming what it needs and what is available', async () => {
    // Three runs hold three V × V int32 matrices: choose V so that they just exceed what is available now.
    const V = Math.ceil(Math.sqrt(process.availableMemory() / 12)) + 500
    const path = join(data, 'huge.bin')
    writeFileSync(path, header(V))
    const rss0 = serveRss()
    const t0 = performance.now()
    const jobId = await api.call<string>('startJob', 'paths', { files: [path], backends: ['workers'], repeat: 3 })
    const end = await api.event((e) => e.jobId === jobId && e.type !== 'progress', 30_000)
    expect(performance.now() - t0).toBeLessThan(5000)
    expect(end.type).toBe('failed')
    expect(end.error.code).toBe('invalid-input')
    expect(end.error.message).toMatch(new RegExp(`^${path}: ${V} vertices need about [\\d.]+ GiB for 3 ${V} × ${V} matrices; [\\d.]+ GiB of memory are available$`))
    expect(serveRss() - rss0).toBeLessThan(100 * 2 ** 20)
  })
})

describe('the CLI on the same graph', () => {
  it('ends within 2 s of Ctrl-C with the interrupted exit code', async () => {
    const child = spawn(process.execPath, [CLI, 'paths', join(data, 'empty12k.bin'), '--backend', 'serial', '--repeat', '1'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    await new Promise((r) => setTimeout(r, 3000))
    const t0 = performance.now()
    child.kill('SIGINT')
    const code = await new Promise<number | null>((ok) => child.once('exit', ok))
    expect(performance.now() - t0, err).toBeLessThan(2000)
    expect(code).toBe(130)
  })
})
