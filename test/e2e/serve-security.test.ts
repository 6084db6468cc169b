// `paralab serve` refuses requests that do not carry the session token, reads only --data (and the
// examples it made), runs jobs, and exports results over the WebSocket API.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { startServe, type ServeProcess } from '../helpers/serve'
import { WORKLOAD_IDS } from '../../src/shared/workloads'

let serve: ServeProcess
let root: string
let dataDir: string
let examplesDir: string
let ws: WebSocket
let nextId = 1
/** Every job event broadcast to this socket. */
const events: any[] = []

function wsResult(url: string, headers: Record<string, string> = {}): Promise<{ opened: boolean; status?: number; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers })
    socket.once('open', () => resolve({ opened: true, ws: socket }))
    socket.once('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode }))
    socket.once('error', () => resolve({ opened: false }))
  })
}

/** One API call over the socket: its reply, `{ result }` or `{ error }`. */
function call(method: string, args: unknown[]): Promise<any> {
  const id = nextId++
  return new Promise((resolve) => {
    const onMessage = (raw: WebSocket.RawData) => {
      const msg = JSON.parse(raw.toString())
      if (msg.id === id) {
        ws.off('message', onMessage)
        resolve(msg)
      }
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify({ id, method, args }))
  })
}

/** The event that ended job `jobId` ('done' or 'failed'). */
async function ended(jobId: string, timeout = 60_000): Promise<any> {
  await expect.poll(() => events.some((e) => e.jobId === jobId && e.type !== 'progress'), { timeout }).toBe(true)
  return events.find((e) => e.jobId === jobId && e.type !== 'progress')
}

/** Why a job could not read its input: a failed job's error, or the file's failure in a finished stats job. */
function refusal(event: any): string {
  if (event.type === 'failed') return event.error.message
  expect(event.envelope.results.files).toEqual([])
  expect(event.envelope.input.files).toEqual([])
  return event.envelope.results.failed[0].error.message
}

const decode = (base64: string) => Buffer.from(base64, 'base64').toString('utf8')

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'paralab-serve-'))
  dataDir = join(root, 'data')
  examplesDir = join(root, 'examples')
  mkdirSync(dataDir)
  writeFileSync(join(dataDir, 'a.csv'), 'x\n1\n')
  serve = await startServe(['--data', dataDir], { PARALAB_EXAMPLES: examplesDir })
  const opened = await wsResult(`${serve.api}?token=${serve.token}`)
  expect(opened.opened).toBe(true)
  ws = opened.ws!
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString())
    if (m.event === 'job') events.push(m.data)
  })
})
afterAll(async () => {
  ws?.close()
  await serve?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('paralab serve', () => {
  it('binds to 127.0.0.1 and serves the dashboard with the token', async () => {
    expect(serve.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const res = await fetch(serve.url)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(await res.text()).toContain('<div id="app"')
  })

  it('refuses HTTP requests without the token or with a wrong one', async () => {
    expect((await fetch(serve.origin + '/')).status).toBe(403)
    expect((await fetch(serve.base)).status).toBe(403)
    expect((await fetch(serve.base + '?token=wrong')).status).toBe(403)
    const port = new URL(serve.origin).port
    expect((await fetch(serve.base + 'index.html', { headers: { cookie: `paralab_${port}=nope` } })).status).toBe(403)
  })

  it('accepts the cookie set by the first page load, which only the dashboard paths of this server receive', async () => {
    const first = await fetch(serve.url)
    const setCookie = first.headers.get('set-cookie')!
    const port = new URL(serve.origin).port
    expect(setCookie).toBe(`paralab_${port}=${serve.token}; Path=/paralab-${port}/; HttpOnly; SameSite=Strict`)
    const cookie = setCookie.split(';')[0]
    expect((await fetch(serve.base + 'index.html', { headers: { cookie } })).status).toBe(200)
  })

  it('refuses WebSocket connections without the token or from another origin', async () => {
    const url = serve.api
    expect((await wsResult(url)).status).toBe(403)
    expect((await wsResult(`${url}?token=wrong`)).status).toBe(403)
    expect((await wsResult(`${url}?token=${serve.token}`, { Origin: 'http://evil.example' })).status).toBe(403)
  })

  it('answers API calls, validates arguments and reads only the --data folders', async () => {
    const files = await call('listDataFiles', [])
    expect(files.result.map((f: { name: string }) => f.name)).toEqual(['a.csv'])
    const bad = await call('startJob', ['stats', { files: [], backends: ['serial'], precision: 'f64', repeat: 1, batches: 1 }])
    expect(bad.error).toEqual({ code: 'invalid-argument', message: 'stats: parameter files must be a non-empty list of file paths; got []' })
    const badRepeat = await call('startJob', ['stats', { files: ['a.csv'], repeat: 0 }])
    expect(badRepeat.error).toEqual({ code: 'invalid-argument', message: 'stats: parameter repeat must be an integer in 1…1000; got 0' })
    const unknownParam = await call('startJob', ['stats', { files: ['a.csv'], rm: true }])
    expect(unknownParam.error.code).toBe('invalid-argument')
    expect(unknownParam.error.message).toMatch(/^stats: unknown parameter "rm"; known: files, /)
    const unknownWorkload = await call('startJob', ['rmrf', {}])
    expect(unknownWorkload.error).toEqual({ code: 'invalid-argument', message: `unknown workload "rmrf"; known: ${WORKLOAD_IDS.join(', ')}` })
    const unknown = await call('rmrf', [])
    expect(unknown.error.code).toBe('bad-request')

    const outside = await call('startJob', ['stats', { files: ['/etc/passwd'], backends: ['serial'], repeat: 1 }])
    expect(refusal(await ended(outside.result))).toBe('/etc/passwd is outside the data folders')
  })

  it('makes the example readable though it lies outside --data, and runs a job on it', async () => {
    const file = join(examplesDir, 'stats', 'acc-example.csv')
    // Not readable before it is asked for.
    const before = await call('startJob', ['stats', { files: [file], backends: ['serial'], repeat: 1 }])
    expect(refusal(await ended(before.result))).toMatch(/acc-example\.csv: no such file|outside the data folders/)

    const setup = await call('example', ['stats'])
    expect(setup.error).toBeUndefined()
    const real = realpathSync(file)
    expect(setup.result.files).toEqual([{ path: real, name: 'acc-example.csv', bytes: statSync(file).size, content: 'text', header: ['datetime', 'acc_x', 'acc_y', 'acc_z'] }])
    expect(setup.result.params).toEqual({ files: [real], backends: ['serial', 'simd', 'workers', 'workers-simd'], repeat: 3, batches: 10 })
    // Offered to the dashboard from now on.
    expect((await call('listDataFiles', [])).result.map((f: { name: string }) => f.name).sort()).toEqual(['a.csv', 'acc-example.csv'])
    // Asking again reuses the file.
    const mtime = statSync(file).mtimeMs
    expect((await call('example', ['stats'])).result).toEqual(setup.result)
    expect(statSync(file).mtimeMs).toBe(mtime)

    // Only the example is let out: another file beside it stays unreadable.
    const beside = join(examplesDir, 'stats', 'other.csv')
    writeFileSync(beside, 'acc_x\n1\n')
    const other = await call('startJob', ['stats', { files: [beside], backends: ['serial'], repeat: 1 }])
    expect(refusal(await ended(other.result))).toBe(`${beside} is outside the data folders`)

    const job = await call('startJob', ['stats', setup.result.params])
    const done = await ended(job.result)
    expect(done.type).toBe('done')
    expect(done.workload).toBe('stats')
    expect(events.some((e) => e.jobId === job.result && e.type === 'progress' && e.workload === 'stats')).toBe(true)
    const env = done.envelope
    expect(env.workload).toBe('stats')
    expect(env.input.files).toEqual([{ path: real, bytes: statSync(file).size, modified: statSync(file).mtime.toISOString(), format: 'csv', sha256: createHash('sha256').update(readFileSync(real)).digest('hex'), generator: { name: 'generate acc', parameters: { rows: 20_000 }, seed: 1 } }])
    expect(Object.keys(env.timings)).toEqual(['serial', 'simd', 'workers', 'workers-simd'])
    expect(env.results.files[0].rows).toBe(20_000)
    expect(env.results.files[0].batches).toHaveLength(10)

    // The device example has no files: its parameters alone.
    expect((await call('example', ['device'])).result).toEqual({ params: { measure: true, readMb: 16, repeat: 3 }, files: [] })
    expect((await call('example', ['nope'])).error.code).toBe('invalid-argument')

    // Exports of this envelope: a table as CSV, the whole envelope as JSON.
    const csv = await call('exportResults', [{ envelope: env, format: 'csv', table: 'results', fileName: 'stats-results' }])
    expect(csv.result).toMatchObject({ fileName: 'stats-results.csv', mime: 'text/csv' })
    const lines = decode(csv.result.base64).trim().split('\n')
    expect(lines[0]).toBe('file,prefix_rows,column,backend,precision,n,missing,mean,std,cv,median,mad,compute_ms,upload_ms,compile_ms')
    // Per column: the reference, 4 backends, and 4 backends at 10 prefixes.
    expect(lines).toHaveLength(1 + 3 * (1 + 4 + 4 * 10))
    expect(lines[1]).toBe(
      [real, 20000, 'acc_x', 'reference', 'f64', ...['n', 'missing', 'mean', 'std', 'cv', 'median', 'mad'].map((k) => env.results.files[0].columns.acc_x[k]), '', '', ''].join(','),
    )
    // Without a table: the first one.
    const first = await call('exportResults', [{ envelope: env, format: 'csv', fileName: 'first.csv' }])
    expect(decode(first.result.base64)).toBe(decode(csv.result.base64))

    const json = await call('exportResults', [{ envelope: env, format: 'json', fileName: 'stats-results.json' }])
    expect(json.result).toMatchObject({ fileName: 'stats-results.json', mime: 'application/json' })
    expect(JSON.parse(decode(json.result.base64))).toEqual(env)

    const unknownTable = await call('exportResults', [{ envelope: env, format: 'csv', table: 'nope', fileName: 'x.csv' }])
    expect(unknownTable.error.code).toBe('invalid-argument')
    expect(unknownTable.error.message).toMatch(/^stats has no table "nope"; tables: results(, \w+)*$/)
    const badName = await call('exportResults', [{ envelope: env, format: 'csv', fileName: '../x.csv' }])
    expect(badName.error.code).toBe('invalid-argument')
  })

  it('runs the device workload and exports any of its tables', async () => {
    const job = await call('startJob', ['device', {}])
    const done = await ended(job.result)
    expect(done.type).toBe('done')
    const env = done.envelope
    expect(env.params).toEqual({ measure: false })
    expect(env.device).toMatchObject({ software: true, adapter: expect.stringMatching(/SwiftShader/i) })
    expect(env.results.info.available).toBe(true)

    const limits = await call('exportResults', [{ envelope: env, format: 'csv', table: 'limits', fileName: 'device-limits.csv' }])
    const rows = decode(limits.result.base64).trim().split('\n')
    expect(rows[0]).toBe('limit,value')
    expect(rows).toContain(`maxStorageBufferBindingSize,${env.results.info.limits.maxStorageBufferBindingSize}`)
    const device = await call('exportResults', [{ envelope: env, format: 'csv', fileName: 'device.csv' }])
    expect(decode(device.result.base64).split('\n')[0]).toBe('quantity,value,unit')
    const unknownTable = await call('exportResults', [{ envelope: env, format: 'csv', table: 'results', fileName: 'x.csv' }])
    expect(unknownTable.error).toEqual({ code: 'invalid-argument', message: 'device has no table "results"; tables: device, limits, gpus' })
  })
})
