// The desktop app's backend process (out/main/backend-host.js) answering the main process's
// requests. Electron's utility process is replaced by a Node child process whose parentPort is a
// stand-in (test/fixtures/parent-port.mjs); the backend code itself runs for real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fork, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { realpathSync } from 'node:fs'

const HOST = resolve(__dirname, '../../out/main/backend-host.js')
const PORT = resolve(__dirname, '../fixtures/parent-port.mjs')
const SAMPLE = resolve(__dirname, '../../../shared/data/accelerometer/ACC_016_head.csv')

let host: ChildProcess
let nextId = 1
const events: any[] = []
const pending = new Map<number, (msg: any) => void>()

function call(method: string, args: unknown[]): Promise<any> {
  const id = nextId++
  return new Promise((resolve) => {
    pending.set(id, resolve)
    host.send({ id, method, args })
  })
}

beforeAll(() => {
  host = fork(HOST, [], { execArgv: ['--import', PORT], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  host.on('message', (msg: any) => {
    if (msg.event === 'job') events.push(msg.data)
    else pending.get(msg.id)?.(msg)
  })
})
afterAll(() => {
  host?.kill()
})

describe('backend process of the desktop app', () => {
  it('answers device requests', async () => {
    const reply = await call('deviceInfo', [])
    expect(reply.result.available).toBe(true)
    expect(reply.result.adapter.isSoftware).toBe(true)
  })

  it('validates requests', async () => {
    const reply = await call('startJob', ['stats', { files: [SAMPLE], repeat: 0 }])
    expect(reply.error.code).toBe('invalid-argument')
  })

  it('reads only files the user picked, then runs jobs on them with progress', async () => {
    const params = { files: [SAMPLE], backends: ['serial'], precision: 'f64', repeat: 1, batches: 1 }
    const refused = (await call('startJob', ['stats', params])).result
    // The job fails, or (a batch run going on past bad files) finishes with the file as its failure.
    await expect.poll(() => events.some((e) => e.jobId === refused && e.type !== 'progress')).toBe(true)
    const end = events.find((e) => e.jobId === refused && e.type !== 'progress')
    expect(end.type === 'failed' ? end.error.message : end.envelope.results.failed[0].error.message).toBe(`${SAMPLE} is outside the data folders`)
    if (end.type === 'done') expect(end.envelope.input.files).toEqual([])
    expect((await call('listDataFiles', [])).result).toEqual([])

    const picked = (await call('allowFiles', [[SAMPLE]])).result
    // Picked files are remembered by their real path.
    expect(picked).toEqual([{ path: realpathSync(SAMPLE), name: 'ACC_016_head.csv', bytes: expect.any(Number), content: 'text', header: ['datetime', 'acc_x', 'acc_y', 'acc_z'] }])
    const jobId = (await call('startJob', ['stats', params])).result
    await expect.poll(() => events.find((e) => e.jobId === jobId && e.type !== 'progress')?.type, { timeout: 30_000 }).toBe('done')
    expect(events.some((e) => e.jobId === jobId && e.type === 'progress')).toBe(true)
    const done = events.find((e) => e.jobId === jobId && e.type === 'done')
    expect(done.envelope.results.files[0].columns.acc_x.median).toBe(-38)
  })

  it('renders exports as files for the main process to save', async () => {
    const chart = { kind: 'roofline', data: { adapter: 'test', peak_GFLOP_per_s: 100, bandwidth_GB_per_s: 10 } }
    const reply = await call('exportChart', [{ chart, format: 'svg', fileName: 'roofline' }])
    expect(reply.result.fileName).toBe('roofline.svg')
    expect(Buffer.from(reply.result.base64, 'base64').toString()).toMatch(/^<\?xml|^<svg/)
  })
})
