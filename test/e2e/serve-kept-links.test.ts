// `paralab serve` and the history folder it manages: a run's folder under <history>/kept/ that is a
// link (planted by anyone who could write there) is neither served as the run's download (a forged
// matrix.npy) nor emptied when serve makes room for a newer run's files; the victim's files survive.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { connectApi, type ApiClient } from '../helpers/api-client'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'

vi.setConfig({ testTimeout: 120_000 })

let dir: string
let data: string
let history: string
let serve: ServeProcess
let api: ApiClient

const address = (path: string) => `${serve.base}${path}${path.includes('?') ? '&' : '?'}token=${serve.token}`

async function correlation(): Promise<{ run: string; files: string[] }> {
  const jobId = await api.call<string>('startJob', 'correlation', { files: [join(data, 'small.csv')], backends: ['serial'], repeat: 1 })
  const done = await api.event((e) => e.jobId === jobId && e.type !== 'progress', 100_000)
  expect(done.type, JSON.stringify(done.error)).toBe('done')
  return done.envelope.kept
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-kept-links-'))
  data = join(dir, 'data')
  history = join(dir, 'history')
  mkdirSync(data)
  const r = spawnSync(process.execPath, [CLI, 'generate', 'walks', join(data, 'small.csv'), '--series', '12', '--length', '50'], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  // A bound that a victim folder of 1 MiB, counted as a run's files, would exceed.
  serve = await startServe(['--data', data], { PARALAB_HISTORY: history, PARALAB_GPU: 'off', PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_KEPT_BYTES: String(2 ** 20) })
  api = await connectApi(serve)
}, 120_000)

afterAll(async () => {
  await serve?.stop()
  rmSync(dir, { recursive: true, force: true })
})

it('a linked run folder is not served as the run\'s download, nor emptied to make room; the files it points to survive', async () => {
  const real = await correlation()
  expect(real.files).toContain('matrix.npy')
  const good = await fetch(address(`runs/${real.run}/matrix.npy`))
  expect(good.status).toBe(200)
  const genuine = Buffer.from(await good.arrayBuffer())

  // A forged run: its envelope copied under another id, its folder a link to forged files of the right shape.
  const forged = join(dir, 'forged')
  mkdirSync(forged)
  for (const f of real.files) copyFileSync(join(history, 'kept', real.run, f), join(forged, f))
  const bytes = readFileSync(join(forged, 'matrix.npy'))
  bytes[bytes.length - 1] ^= 0x7f
  writeFileSync(join(forged, 'matrix.npy'), bytes)
  const fake = '20000101T000000000Z-correlation-deadbeef'
  copyFileSync(join(history, `${real.run}.json`), join(history, `${fake}.json`))
  symlinkSync(forged, join(history, 'kept', fake))
  const got = await fetch(address(`runs/${fake}/matrix.npy`))
  const body = Buffer.from(await got.arrayBuffer())
  expect(body.equals(bytes), 'the forged matrix was served').toBe(false)
  expect(got.status).not.toBe(200)
  expect(body.toString()).toMatch(new RegExp(`kept/${fake} is a symbolic link, not a folder Paralab made`))
  expect(genuine.length).toBe(bytes.length)

  // The oldest "run" of kept/ a link to a user's folder of kept-like names, larger than the bound:
  // keeping the next run's files must not delete them.
  const victim = join(dir, 'victim')
  mkdirSync(victim)
  writeFileSync(join(victim, 'matrix.npy'), Buffer.alloc(2 ** 20, 1))
  writeFileSync(join(victim, 'matrix-names.json'), '["mine"]')
  writeFileSync(join(victim, 'notes.txt'), 'mine')
  symlinkSync(victim, join(history, 'kept', '19990101T000000000Z-correlation-00000000'))
  const next = await correlation()
  expect(readdirSync(victim).sort()).toEqual(['matrix-names.json', 'matrix.npy', 'notes.txt'])
  expect(readdirSync(forged).sort()).toEqual([...real.files].sort())
  expect(readdirSync(join(history, 'kept', next.run)).sort()).toEqual([...next.files].sort())
})
