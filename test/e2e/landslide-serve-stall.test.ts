// A whole landslide job on a big grid does not hold `paralab serve`: on a generated 2 480 × 3 050
// slope (7.6 M cells) a job reads the grids, simulates with a sample of the grid every few steps,
// hashes its output and keeps its final grid, while the server's event loop never stops for more than
// STALL_MS: WebSocket pings, which the server answers on its event loop and nothing else (no file,
// no thread pool), are sent every 20 ms and the longest wait for a pong is the longest stall. Before,
// the samples' neighbourhood test of every cell and the setup's passes held it for 0.3–0.9 s at a time.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { connectApi, type ApiClient } from '../helpers/api-client'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'

/** The longest a request may wait while the job runs. */
const STALL_MS = 500
let root: string
let data: string
let serve: ServeProcess
let api: ApiClient

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'paralab-landslide-stall-'))
  data = join(root, 'data')
  mkdirSync(data)
  execFileSync(process.execPath, [CLI, 'generate', 'slope', join(data, 'dem.tif'), join(data, 'source.tif'), '--rows', '3050', '--cols', '2480'])
  serve = await startServe(['--data', data], { PARALAB_HISTORY: join(root, 'history'), PARALAB_EXAMPLES: join(root, 'examples'), PARALAB_GPU: 'off' })
  api = await connectApi(serve)
}, 120_000)
afterAll(async () => {
  api?.close()
  await serve?.stop()
  rmSync(root, { recursive: true, force: true })
})

/** Pings the server's socket every 20 ms until stopped: the longest a pong took, and how many came. */
async function pinging(): Promise<{ stop(): Promise<{ worst: number; pongs: number; long: string[] }> }> {
  const ws = new WebSocket(`${serve.api}?token=${serve.token}`)
  await new Promise((ok, fail) => ws.once('open', ok).once('error', fail))
  let worst = 0
  let pongs = 0
  let sent: number | null = null
  let phase = 'starting'
  const long: string[] = []
  ws.on('message', (m) => {
    const p = /"phase":"([^"]*)"/.exec(String(m).slice(0, 400))?.[1]
    if (p) phase = p
  })
  ws.on('pong', () => {
    const took = performance.now() - sent!
    if (took > 150) long.push(`${took.toFixed(0)} ms (${phase})`)
    worst = Math.max(worst, took)
    pongs++
    sent = null
  })
  const timer = setInterval(() => {
    if (sent !== null) return worst = Math.max(worst, performance.now() - sent)
    sent = performance.now()
    ws.ping()
  }, 20)
  return {
    async stop() {
      clearInterval(timer)
      ws.close()
      return { worst, pongs, long }
    },
  }
}

describe('a landslide job on a 2 480 × 3 050 grid under serve', () => {
  it(`never holds the server's event loop for ${STALL_MS} ms, from reading the grids to keeping the final grid`, async () => {
    const pings = await pinging()
    const jobId = await api.call<string>('startJob', 'landslide', { grids: [join(data, 'dem.tif'), join(data, 'source.tif')], steps: 200, backends: ['active'], repeat: 1 })
    const end = await api.event((e) => e.jobId === jobId && e.type !== 'progress', 180_000)
    const { worst, pongs, long } = await pings.stop()
    expect(end.type, JSON.stringify(end.error)).toBe('done')
    expect(end.envelope.results.series.step.length).toBe(21)
    expect(end.envelope.kept.files).toContain('final.npy')
    console.log(`the longest stall during the job: ${worst.toFixed(0)} ms (${pongs} pongs); over 150 ms: ${long.join(', ') || 'none'}`)
    expect(pongs).toBeGreaterThan(20)
    expect(worst).toBeLessThan(STALL_MS)
  }, 180_000)
})
