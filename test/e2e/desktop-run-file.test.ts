// The desktop app's way to a run's full matrix: the main process asks the backend process to check
// the file (exportRunFile), shows the save dialog, then has it written where the user chose
// (writeRunFile), whole or not at all. The backend process runs for real (out/main/backend-host.js,
// with the stand-in parentPort of test/fixtures/parent-port.mjs); the dialog is the one part left out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fork, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { CLI } from '../helpers/serve'

const HOST = resolve(__dirname, '../../out/main/backend-host.js')
const PORT = resolve(__dirname, '../fixtures/parent-port.mjs')

let dir: string
let host: ChildProcess
let nextId = 1
const events: any[] = []
const pending = new Map<number, (msg: any) => void>()

function call(method: string, args: unknown[]): Promise<any> {
  const id = nextId++
  return new Promise((ok) => {
    pending.set(id, ok)
    host.send({ id, method, args })
  })
}

let run: string
let input: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-desktop-file-'))
  input = join(dir, 'walks.csv')
  const gen = spawnSync(process.execPath, [CLI, 'generate', 'walks', input, '--series', '30', '--length', '100'], { encoding: 'utf8' })
  expect(gen.status, gen.stderr).toBe(0)
  const cli = spawnSync(process.execPath, [CLI, 'correlation', input, '--backend', 'serial', '--repeat', '1', '--matrix', join(dir, 'cli.csv')], { encoding: 'utf8' })
  expect(cli.status, cli.stderr).toBe(0)
  host = fork(HOST, [], { execArgv: ['--import', PORT], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, PARALAB_HISTORY: join(dir, 'history'), PARALAB_GPU: 'off' } })
  host.on('message', (msg: any) => {
    if (msg.event === 'job') events.push(msg.data)
    else pending.get(msg.id)?.(msg)
  })
  await call('allowFiles', [[input]])
  const jobId = (await call('startJob', ['correlation', { files: [input], backends: ['serial'], repeat: 1 }])).result
  const ended = () => events.find((e) => e.jobId === jobId && e.type !== 'progress')
  for (const start = Date.now(); !ended() && Date.now() - start < 60_000; ) await new Promise((r) => setTimeout(r, 50))
  const end = ended()
  expect(end.type, JSON.stringify(end.error)).toBe('done')
  run = end.envelope.kept.run
})

afterAll(() => {
  host?.kill()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('a run\'s file in the desktop app', () => {
  it('is checked, then written where the user chose: the CSV --matrix writes', async () => {
    const req = { run, file: 'matrix.csv', fileName: 'walks-matrix.csv' }
    expect((await call('exportRunFile', [req])).result).toMatchObject({ fileName: 'walks-matrix.csv', mime: 'text/csv' })
    const out = join(dir, 'saved', 'walks-matrix.csv')
    mkdirSync(join(dir, 'saved'))
    expect((await call('writeRunFile', [req, out])).result).toBe(out)
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(dir, 'cli.csv'), 'utf8'))
  })

  it('refuses a relative path, a request with more in it, and a run that is not one', async () => {
    const req = { run, file: 'matrix.npy', fileName: 'x.npy' }
    expect((await call('writeRunFile', [req, 'x.npy'])).error.message).toMatch(/absolute path/)
    expect((await call('writeRunFile', [{ ...req, file: '../x' }, join(dir, 'x.npy')])).error.message).toMatch(/file must be a result file's name/)
    expect((await call('writeRunFile', [{ ...req, run: '20250101T000000000Z-correlation-ffffffff' }, join(dir, 'x.npy')])).error.message).toMatch(/no run .* in the history/)
    expect(readdirSync(dir)).not.toContain('x.npy')
  })

  it('a kept matrix damaged since leaves no file, whole or half, where the user chose', async () => {
    const target = join(dir, 'saved2')
    mkdirSync(target)
    truncateSync(join(dir, 'history', 'kept', run, 'matrix.npy'), 1000)
    const reply = await call('writeRunFile', [{ run, file: 'matrix.csv', fileName: 'm.csv' }, join(target, 'm.csv')])
    expect(reply.error.message).toMatch(/the kept matrix holds 1000 bytes, not the \d+ of this run's 30 × 30 matrix/)
    expect(readdirSync(target)).toEqual([])
  })
})
