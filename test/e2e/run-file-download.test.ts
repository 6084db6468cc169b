// The full correlation matrix of a dashboard run, downloaded from `paralab serve` as it is read from
// the copy the run kept on disk: byte for byte what `--matrix` writes, in memory far below the file's
// size, stopping when the connection closes; hostile addresses refused; and the view's buttons in
// Chromium. A paths run's kept distances likewise, as .npy, CSV and Matrix Market: byte for byte
// what `paths --output` writes, vertex names of a CSV edge list included.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { connectApi, measuredDownload, type ApiClient } from '../helpers/api-client'
import { launchChromium } from '../helpers/browser'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'

vi.setConfig({ testTimeout: 180_000 })

/** 4 096 series: a 128 MiB .npy, and a CSV of about 317 MB. */
const M = 4096
let dir: string
let data: string
let history: string
let serve: ServeProcess
let api: ApiClient
let run: string
/** A paths run of two graphs: a CSV edge list (graph 0) and V vertices in the course's format (graph 1). */
let pathsRun: string
const V = 1500

function paralab(...args: string[]): void {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, PARALAB_GPU: 'off' } })
  expect(r.status, r.stderr).toBe(0)
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
const address = (path: string) => `${serve.base}${path}${path.includes('?') ? '&' : '?'}token=${serve.token}`

/** Downloads `path` from the server, measured (helpers/api-client.ts). */
const download = (path: string) => measuredDownload(address(path))

/** Files of the server open under `folder`, by their paths. */
function openFilesUnder(folder: string): string[] {
  return readdirSync(`/proc/${serve.pid}/fd`).flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/${serve.pid}/fd/${fd}`)
      return target.startsWith(folder) ? [target] : []
    } catch {
      return []
    }
  })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-download-'))
  data = join(dir, 'data')
  history = join(dir, 'history')
  mkdirSync(data)
  paralab('generate', 'walks', join(data, 'w.npy'), '--series', String(M), '--length', '16')
  paralab('generate', 'walks', join(data, 'small.csv'), '--series', '12', '--length', '50')
  // What the command line writes of the same file: the downloads must be these bytes.
  paralab('correlation', join(data, 'w.npy'), '--backend', 'workers-simd', '--repeat', '1', '--matrix', join(dir, 'cli.npy'))
  paralab('correlation', join(data, 'w.npy'), '--backend', 'workers-simd', '--repeat', '1', '--matrix', join(dir, 'cli.csv'))
  paralab('generate', 'graph', join(data, `g${V}.1`), '--vertices', String(V), '--edges', String(6 * V))
  // A CSV edge list names its vertices: names with a comma and a quote, and a vertex nothing reaches.
  writeFileSync(join(data, 'named.csv'), 'source,target,weight\nAlpha,"B,eta",3\n"B,eta","Gam""ma",-1\n"Gam""ma",Alpha,4\nAlpha,Delta,7\nEpsilon,Alpha,2\n')
  for (const format of ['npy', 'csv', 'mtx']) {
    paralab('paths', join(data, `g${V}.1`), '--backend', 'workers-simd', '--repeat', '1', '--output', join(dir, `g.${format}`))
    paralab('paths', join(data, 'named.csv'), '--backend', 'serial', '--repeat', '1', '--output', join(dir, `named.${format}`))
  }
  serve = await startServe(['--data', data], { PARALAB_HISTORY: history, PARALAB_GPU: 'off', PARALAB_EXAMPLES: join(dir, 'examples') })
  api = await connectApi(serve)
  const jobId = await api.call<string>('startJob', 'correlation', { files: [join(data, 'w.npy')], backends: ['workers-simd'], repeat: 1 })
  const done = await api.event((e) => e.jobId === jobId && e.type !== 'progress', 120_000)
  expect(done.type, JSON.stringify(done.error)).toBe('done')
  expect(done.envelope.kept.files).toEqual(['matrix-names.json', 'matrix.npy'])
  run = done.envelope.kept.run
  const paths = await api.call<string>('startJob', 'paths', { files: [join(data, 'named.csv'), join(data, `g${V}.1`)], backends: ['serial'], repeat: 1 })
  const pathsDone = await api.event((e) => e.jobId === paths && e.type !== 'progress', 120_000)
  expect(pathsDone.type, JSON.stringify(pathsDone.error)).toBe('done')
  expect(pathsDone.envelope.kept.files).toEqual(['distances-0-names.json', 'distances-0.npy', 'distances-1.npy'])
  pathsRun = pathsDone.envelope.kept.run
})

afterAll(async () => {
  api?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('downloads of a kept correlation matrix over paralab serve', () => {
  it('exportRunFile checks the run and the file and answers with the address the browser downloads from', async () => {
    expect(await api.call('exportRunFile', { run, file: 'matrix.csv', fileName: 'w-matrix.csv' })).toEqual({
      fileName: 'w-matrix.csv',
      mime: 'text/csv',
      url: `runs/${run}/matrix.csv?name=w-matrix.csv`,
    })
  })

  it('the .npy is the file --matrix writes, with its length and name, streamed in memory well under its size', async () => {
    const got = await download(`runs/${run}/matrix.npy?name=w-matrix.npy`)
    expect(got.status).toBe(200)
    expect(got.headers.get('content-disposition')).toBe('attachment; filename="w-matrix.npy"')
    expect(Number(got.headers.get('content-length'))).toBe(got.bytes)
    expect(got.bytes).toBe(128 + M * M * 8)
    expect(got.sha256).toBe(sha256(join(dir, 'cli.npy')))
    console.log(`matrix.npy: ${got.bytes} bytes, the server grew by ${(got.rssGrowth / 2 ** 20).toFixed(1)} MiB`)
    // A bound that does not grow with the file: blocks in flight and the garbage collector's slack.
    expect(got.rssGrowth).toBeLessThan(64 * 2 ** 20)
  })

  it('the CSV is the file --matrix writes, written as it is read: the server grows by far less than the file', async () => {
    const got = await download(`runs/${run}/matrix.csv?name=w-matrix.csv`)
    expect(got.status).toBe(200)
    expect(got.headers.get('content-type')).toBe('text/csv')
    expect(got.headers.get('content-disposition')).toBe('attachment; filename="w-matrix.csv"')
    expect(got.bytes).toBeGreaterThan(250e6)
    expect(got.sha256).toBe(sha256(join(dir, 'cli.csv')))
    console.log(`matrix.csv: ${got.bytes} bytes, the server grew by ${(got.rssGrowth / 2 ** 20).toFixed(1)} MiB`)
    // Each cell's text is encoded into one of a few pieces that go round (io/text-pieces.ts): no
    // row's or piece's string in the large-object space, no megabyte buffer a piece left for a late
    // collection. What is left is capped whatever the load or the file (5 GB at M = 16 384): V8's
    // young generation at its largest (3 × 16 MiB) under the short cell strings, the old
    // generation's slack, an 8 MiB block and the pieces. 78–83 MiB measured.
    expect(got.rssGrowth).toBeLessThan(128 * 2 ** 20)
  })

  it('a closed connection stops the reading: the kept matrix is closed again and the server answers', async () => {
    const kept = join(history, 'kept', run)
    const stop = new AbortController()
    const res = await fetch(address(`runs/${run}/matrix.csv`), { signal: stop.signal })
    const reader = res.body!.getReader()
    await reader.read()
    expect(openFilesUnder(kept).length).toBeGreaterThan(0)
    stop.abort()
    await expect.poll(() => openFilesUnder(kept), { timeout: 10_000 }).toEqual([])
    // Nothing half-written was left beside the kept files, and the server goes on.
    expect(readdirSync(kept).sort()).toEqual(['matrix-names.json', 'matrix.npy'])
    expect((await fetch(address(`runs/${run}/matrix.npy`), { method: 'HEAD' })).status).toBe(200)
  })

  it('refuses what is not a run\'s offered file: other names, paths, ids that are not runs, no token', async () => {
    const refused = async (path: string, why: RegExp) => {
      const res = await fetch(address(path))
      expect(res.status, path).toBe(404)
      expect(await res.text(), path).toMatch(why)
    }
    await refused(`runs/${run}/matrix-names.json`, /makes no file "matrix-names.json"; it makes: matrix.npy, matrix.csv/)
    await refused(`runs/${run}/..%2F..%2F${run}.json`, /runs\/<run id>\/<file>/)
    await refused(`runs/${run}/%2Fetc%2Fpasswd`, /runs\/<run id>\/<file>/)
    await refused(`runs/${run}/.matrix.npy`, /file must be a result file's name/)
    await refused(`runs/${run}/matrix.npy/more`, /runs\/<run id>\/<file>/)
    await refused(`runs/..%2Fhistory/matrix.npy`, /runs\/<run id>\/<file>/)
    await refused(`runs/kept/matrix.npy`, /run must be a run id/)
    await refused('runs/20250101T000000000Z-correlation-ffffffff/matrix.npy', /no run "20250101T000000000Z-correlation-ffffffff" in the history/)
    await refused(`runs/${run}/matrix.npy?name=..%2F..%2Fx.npy`, /fileName must be a plain file name/)
    const anonymous = await fetch(`${serve.base}runs/${run}/matrix.npy`)
    expect(anonymous.status).toBe(403)
    await expect(api.call('exportRunFile', { run: '../../etc', file: 'matrix.npy', fileName: 'x.npy' })).rejects.toThrow(/run must be a run id/)
    await expect(api.call('exportRunFile', { run, file: 'matrix.npy', fileName: 'x.npy', path: '/tmp/x' })).rejects.toThrow(/has no "path"/)
  })

  it('refuses a kept matrix replaced by a link, and one whose size is not the run\'s', async () => {
    const jobId = await api.call<string>('startJob', 'correlation', { files: [join(data, 'small.csv')], backends: ['serial'], repeat: 1 })
    const done = await api.event((e) => e.jobId === jobId && e.type !== 'progress', 60_000)
    const other = done.envelope.kept.run
    const matrix = join(history, 'kept', other, 'matrix.npy')
    unlinkSync(matrix)
    symlinkSync(join(history, 'kept', run, 'matrix.npy'), matrix)
    const linked = await fetch(address(`runs/${other}/matrix.npy`))
    expect(linked.status).toBe(500)
    expect(await linked.text()).toMatch(/is a symbolic link, not a file Paralab wrote/)
    unlinkSync(matrix)
    const missing = await fetch(address(`runs/${other}/matrix.csv`))
    expect(missing.status).toBe(404)
    expect(await missing.text()).toMatch(/keeps no matrix.npy/)
  })

  it('in Chromium, the results offer the full matrix and the browser saves the CSV the server streams', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
      await page.goto(serve.url)
      await page.getByTestId('nav-correlation').click()
      await page.getByTestId('correlation-file-small.csv').check()
      await page.getByTestId('correlation-repeat').fill('1')
      await page.getByTestId('correlation-run').click()
      await page.getByTestId('correlation-matrix-downloads').waitFor({ timeout: 60_000 })
      const [saved] = await Promise.all([page.waitForEvent('download'), page.getByTestId('correlation-download-matrix.csv').click()])
      expect(saved.suggestedFilename()).toBe('small-matrix-12.csv')
      const text = readFileSync((await saved.path())!, 'utf8')
      const lines = text.trimEnd().split('\n')
      expect(lines).toHaveLength(13)
      expect(lines[0]).toMatch(/^r,s0,s1,/)
      expect(Math.abs(Number(lines[1].split(',')[1]) - 1)).toBeLessThan(1e-12)
    } finally {
      await browser.close()
    }
  })
})

describe('downloads of a paths run\'s kept distances over paralab serve', () => {
  it.each(['npy', 'csv', 'mtx'])('distances as .%s are the file paths --output writes, for each graph of the run', async (format) => {
    for (const [k, cli] of [[0, 'named'], [1, 'g']] as const) {
      const got = await download(`runs/${pathsRun}/distances-${k}.${format}?name=${cli}.${format}`)
      expect(got.status, `graph ${k}`).toBe(200)
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${cli}.${format}"`)
      expect(got.sha256, `graph ${k} as ${format}`).toBe(sha256(join(dir, `${cli}.${format}`)))
      if (k === 1) console.log(`distances-1.${format}: ${got.bytes} bytes, the server grew by ${(got.rssGrowth / 2 ** 20).toFixed(1)} MiB`)
      if (k === 1) expect(got.rssGrowth, `${format}: the server grew by ${(got.rssGrowth / 2 ** 20).toFixed(1)} MiB`).toBeLessThan(48 * 2 ** 20)
    }
    expect(readFileSync(join(dir, 'named.csv'), 'utf8').split('\n')[0]).toBe('distance from \\ to,Alpha,"B,eta","Gam""ma",Delta,Epsilon')
  })

  it('refuses graphs the run does not have, other names, and a matrix or names that are not the graph\'s', async () => {
    const refused = async (path: string, status: number, why: RegExp) => {
      const res = await fetch(address(path))
      expect(res.status, path).toBe(status)
      expect(await res.text(), path).toMatch(why)
    }
    await refused(`runs/${pathsRun}/distances-2.npy`, 404, /the run has no graph 2 \(it has 2\)/)
    await refused(`runs/${pathsRun}/distances-0.bin`, 404, /paths makes no file "distances-0.bin"; it makes: distances-<graph>.npy, distances-<graph>.csv, distances-<graph>.mtx/)
    await refused(`runs/${pathsRun}/distances-0-names.json`, 404, /makes no file/)
    await refused(`runs/${run}/distances-0.npy`, 404, /correlation makes no file "distances-0.npy"/)
    const kept = join(history, 'kept', pathsRun)
    const names = readFileSync(join(kept, 'distances-0-names.json'))
    writeFileSync(join(kept, 'distances-0-names.json'), JSON.stringify(['a', 'b']))
    await refused(`runs/${pathsRun}/distances-0.csv`, 500, /the kept vertex names are not this graph's 5 names/)
    writeFileSync(join(kept, 'distances-0-names.json'), names)
    const matrix = readFileSync(join(kept, 'distances-1.npy'))
    writeFileSync(join(kept, 'distances-1.npy'), matrix.subarray(0, matrix.length - 4))
    await refused(`runs/${pathsRun}/distances-1.mtx`, 500, /the kept distances hold \d+ bytes, not the \d+ of this graph's 1500 × 1500 matrix/)
    writeFileSync(join(kept, 'distances-1.npy'), matrix)
  })
})
