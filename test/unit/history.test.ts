// The run history: one JSON envelope per finished job in a per-user folder, written whole, listed
// newest first, bounded, and read back only by ids of its own shape, whatever a request names.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { Backend } from '../../src/main/backend/backend'
import { defaultHistoryDir, RunHistory, summaryOf } from '../../src/main/backend/history'
import { ENGINES } from '../../src/main/workloads'
import { validateRequest } from '../../src/shared/validate'
import type { JobEvent } from '../../src/shared/jobs'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import { failure } from '../helpers/failure'

// Lets a test make the final step of an atomic write (link or rename into place) fail.
const fs = vi.hoisted(() => ({ failPlacing: false }))
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  const refuse = () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))
  return {
    ...real,
    link: (...a: Parameters<typeof real.link>) => (fs.failPlacing ? refuse() : real.link(...a)),
    rename: (...a: Parameters<typeof real.rename>) => (fs.failPlacing ? refuse() : real.rename(...a)),
  }
})

const root = mkdtempSync(join(tmpdir(), 'paralab-history-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let folders = 0
const freshDir = () => join(root, `h${++folders}`)

function envelopeAt(createdAt: string, more: Partial<ResultEnvelope> = {}): ResultEnvelope {
  return {
    workload: 'stats',
    paralabVersion: '0.1.0',
    createdAt,
    params: { files: ['/data/a.csv'], repeat: 3 },
    input: { files: [{ path: '/data/a.csv', bytes: 10, modified: createdAt }] },
    host: { cpu: 'cpu', cores: 2, memoryBytes: 1, os: 'linux', node: 'v20' },
    timings: { serial: { median: 2, min: 1, max: 3, runs: 3 }, gpu: { median: 1, min: 1, max: 1, runs: 3 } },
    results: { files: [] },
    ...more,
  }
}

describe('RunHistory', () => {
  it('writes each envelope whole as <id>.json and reads it back unchanged', async () => {
    const dir = freshDir()
    const history = new RunHistory(dir)
    const env = envelopeAt('2025-03-04T05:06:07.089Z')
    const id = await history.save(env)
    expect(id).toMatch(/^20250304T050607089Z-stats-[0-9a-f]{8}$/)
    // Only the run's file: the temporary file it was written to is gone.
    expect(readdirSync(dir)).toEqual([`${id}.json`])
    expect(JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8'))).toEqual(env)
    expect(await history.open(id)).toEqual(env)
  })

  it('a write that fails before the file is in place leaves neither the run nor a temporary file', async () => {
    const dir = freshDir()
    const history = new RunHistory(dir)
    const kept = await history.save(envelopeAt('2025-01-01T00:00:00.000Z'))
    fs.failPlacing = true
    try {
      const err = await failure(history.save(envelopeAt('2025-01-02T00:00:00.000Z')))
      expect(err.message).toMatch(/no space left on device/)
    } finally {
      fs.failPlacing = false
    }
    expect(readdirSync(dir)).toEqual([`${kept}.json`])
    expect((await history.list()).map((r) => r.id)).toEqual([kept])
  })

  it('lists newest first by start time, whatever order the runs were saved in, with a summary line', async () => {
    const history = new RunHistory(freshDir())
    const times = ['2025-05-01T10:00:00.000Z', '2025-05-03T10:00:00.000Z', '2025-05-02T10:00:00.000Z', '2024-12-31T23:59:59.999Z']
    const ids = new Map<string, string>()
    for (const t of times) ids.set(t, await history.save(envelopeAt(t, t.startsWith('2025-05-02') ? { partial: true } : {})))
    const runs = await history.list()
    expect(runs.map((r) => r.createdAt)).toEqual([...times].sort().reverse())
    expect(runs.map((r) => r.id)).toEqual([...times].sort().reverse().map((t) => ids.get(t)))
    expect(runs[1]).toEqual({ id: ids.get(times[2]), workload: 'stats', createdAt: times[2], summary: 'a.csv · serial, gpu', partial: true, provenance: ['a.csv · no sha256 recorded'], thisSession: true })
    expect(runs.filter((r) => r.partial)).toHaveLength(1)
  })

  it('marks only the runs this process saved as this session\'s', async () => {
    const dir = freshDir()
    const earlier = await new RunHistory(dir).save(envelopeAt('2025-01-01T00:00:00.000Z'))
    const history = new RunHistory(dir)
    const now = await history.save(envelopeAt('2025-01-02T00:00:00.000Z'))
    expect((await history.list()).map((r) => [r.id, r.thisSession])).toEqual([
      [now, true],
      [earlier, false],
    ])
  })

  it('keeps only the newest runs beyond its bound', async () => {
    const dir = freshDir()
    const history = new RunHistory(dir, 3)
    const ids: string[] = []
    for (let day = 1; day <= 5; day++) ids.push(await history.save(envelopeAt(`2025-06-0${day}T00:00:00.000Z`)))
    expect((await history.list()).map((r) => r.id)).toEqual(ids.slice(2).reverse())
    expect(readdirSync(dir).sort()).toEqual(ids.slice(2).map((id) => `${id}.json`))
    await failure(history.open(ids[0]))
  })

  it('leaves files that are not runs out of the list, and says a damaged run is damaged', async () => {
    const dir = freshDir()
    const history = new RunHistory(dir)
    const good = await history.save(envelopeAt('2025-01-01T00:00:00.000Z'))
    const damaged = '20250102T000000000Z-stats-0000beef'
    writeFileSync(join(dir, `${damaged}.json`), '{"workload": "stats", "createdAt": ')
    writeFileSync(join(dir, 'notes.json'), JSON.stringify(envelopeAt('2025-01-03T00:00:00.000Z')))
    writeFileSync(join(dir, 'README.txt'), 'hello')
    expect((await history.list()).map((r) => r.id)).toEqual([good])
    const err = await failure(history.open(damaged))
    expect(err.code).toBe('io')
    expect(err.message).toMatch(/damaged/)
  })

  it('names a run with a label, listed with it, renamed, and removed by an empty label; a label names only a run it can open', async () => {
    const dir = freshDir()
    const history = new RunHistory(dir, 200, { folders: ['/data'], examples: '/examples' })
    const a = await history.save(envelopeAt('2025-01-01T00:00:00.000Z'))
    const b = await history.save(envelopeAt('2025-01-02T00:00:00.000Z'))
    await history.label(a, '  before the fix ')
    expect((await history.list()).map((r) => [r.id, r.label])).toEqual([
      [b, undefined],
      [a, 'before the fix'],
    ])
    await history.label(a, 'Tessina 10 m')
    await history.label(b, 'after')
    expect((await history.list()).map((r) => r.label)).toEqual(['after', 'Tessina 10 m'])
    await history.label(b, '')
    expect((await history.list()).map((r) => r.label)).toEqual([undefined, 'Tessina 10 m'])
    // A run on other data, or none at all: the same answer as opening it.
    const other = await history.save(envelopeAt('2025-01-03T00:00:00.000Z', { input: { files: [{ path: '/elsewhere/x.csv', bytes: 1, modified: '' }] } }))
    expect((await failure(history.label(other, 'x'))).code).toBe('invalid-argument')
    expect((await failure(history.label('20250101T000000000Z-stats-00000000', 'x'))).code).toBe('invalid-argument')
    // A damaged labels file, or a link in its place, is no labels at all (and is replaced on the next label).
    writeFileSync(join(dir, 'labels.json'), '{"not json')
    expect((await history.list()).every((r) => r.label === undefined)).toBe(true)
    rmSync(join(dir, 'labels.json'))
    const outside = join(root, 'labels-outside.json')
    writeFileSync(outside, JSON.stringify({ [a]: 'from outside' }))
    symlinkSync(outside, join(dir, 'labels.json'))
    expect((await history.list()).every((r) => r.label === undefined)).toBe(true)
    await history.label(a, 'mine')
    expect(JSON.parse(readFileSync(outside, 'utf8'))).toEqual({ [a]: 'from outside' })
    expect((await history.list()).find((r) => r.id === a)?.label).toBe('mine')
  })

  it('refuses labels that are not one short line of text before they reach the store', () => {
    const id = '20250101T000000000Z-stats-0000cafe'
    expect(() => validateRequest('labelRun', [id, 'Tessina, 10 m cells'])).not.toThrow()
    expect(() => validateRequest('labelRun', [id, ''])).not.toThrow()
    expect(() => validateRequest('labelRun', [id, 'a'.repeat(81)])).toThrow(/label must be at most 80 characters; got 81/)
    expect(() => validateRequest('labelRun', [id, 'two\nlines'])).toThrow(/label must be one line without control characters/)
    expect(() => validateRequest('labelRun', [id, 'bell\u0007'])).toThrow(/without control characters/)
    expect(() => validateRequest('labelRun', [id, 42])).toThrow(/label must be text/)
    expect(() => validateRequest('labelRun', ['../secret', 'x'])).toThrow(/id must be a run id from listRuns/)
    expect(() => validateRequest('labelRun', [id])).toThrow(/labelRun takes 2 argument/)
  })

  it('an empty or missing folder is an empty history', async () => {
    expect(await new RunHistory(join(root, 'never-made')).list()).toEqual([])
  })

  describe('refuses ids that are not its own, reading nothing outside the folder', () => {
    const dir = join(root, 'hostile', 'history')
    const secret = join(root, 'hostile', 'secret.json')
    let history: RunHistory
    beforeAll(() => {
      mkdirSync(dir, { recursive: true })
      // Outside the folder, a perfectly good envelope: what a hostile id would like to read.
      writeFileSync(secret, JSON.stringify(envelopeAt('2025-01-01T00:00:00.000Z')))
      history = new RunHistory(dir)
    })

    it.each([
      ['../secret', '../secret'],
      ['../x', '../x'],
      ['an absolute path', secret.replace(/\.json$/, '')],
      ['an absolute path with its extension', secret],
      ['a Windows path', 'C:\\Users\\x\\secret'],
      ['a very long id', `20250101T000000000Z-stats-${'a'.repeat(10_000)}`],
      ['an id with a NUL', '20250101T000000000Z-stats-0000beef\0'],
      ['an id with a slash', '20250101T000000000Z-stats/../../secret'],
      ['the empty string', ''],
    ])('%s', async (_what, id) => {
      const err = await failure(history.open(id))
      expect(err.code).toBe('invalid-argument')
      expect(err.message.length).toBeLessThan(160)
      expect(() => validateRequest('openRun', [id])).toThrow(/id must be a run id from listRuns/)
    })

    it('a link under a run\'s name is not followed', async () => {
      const id = '20250101T000000000Z-stats-0000cafe'
      symlinkSync(secret, join(dir, `${id}.json`))
      expect(() => validateRequest('openRun', [id])).not.toThrow()
      expect((await failure(history.open(id))).code).toBe('invalid-argument')
      expect(await history.list()).toEqual([])
    })

    it('requests other than a string are refused before they reach the store', () => {
      for (const id of [42, null, ['x'], { id: 'x' }]) expect(() => validateRequest('openRun', [id])).toThrow(/id must be a run id/)
      expect(() => validateRequest('openRun', [])).toThrow(/openRun takes 1 argument/)
      expect(() => validateRequest('listRuns', [])).not.toThrow()
      expect(() => validateRequest('listRuns', ['x'])).toThrow(/listRuns takes 0 argument/)
    })
  })
})

describe('summaryOf', () => {
  it('names up to two files, then the first and a count, and the timed backends', () => {
    const files = (n: number) => ({ files: Array.from({ length: n }, (_, i) => ({ path: `/d/f${i}.csv`, bytes: 1, modified: '' })) })
    expect(summaryOf(envelopeAt('2025-01-01T00:00:00.000Z', { input: files(2) }))).toBe('f0.csv, f1.csv · serial, gpu')
    expect(summaryOf(envelopeAt('2025-01-01T00:00:00.000Z', { input: files(5) }))).toBe('f0.csv + 4 more · serial, gpu')
  })

  it('describes a run without inputs or timings by the parameters it changed', () => {
    const bare = { input: { files: [] }, timings: {} }
    expect(summaryOf(envelopeAt('2025-01-01T00:00:00.000Z', { ...bare, workload: 'device', params: { measure: true, readMb: 16 } }))).toMatch(/^Measure yes · .*16/)
    expect(summaryOf(envelopeAt('2025-01-01T00:00:00.000Z', { ...bare, workload: 'device', params: {} }))).toBe('default parameters')
    // Cancelled before it read its file: the file asked for.
    expect(summaryOf(envelopeAt('2025-01-01T00:00:00.000Z', { ...bare, partial: true, params: { files: ['/d/a.csv'] } }))).toBe('a.csv')
  })
})

describe('RunHistory scope', () => {
  it('lists and opens only the runs on its data folders, the examples\' and runs without inputs', async () => {
    const dir = freshDir()
    const on = (path: string) => ({ input: { files: [{ path, bytes: 1, modified: '' }] } })
    const all = new RunHistory(dir)
    const inside = await all.save(envelopeAt('2025-01-01T00:00:00.000Z', on('/lab/x/sub/a.csv')))
    const example = await all.save(envelopeAt('2025-01-02T00:00:00.000Z', on('/cache/examples/stats/acc-example.csv')))
    const device = await all.save(envelopeAt('2025-01-03T00:00:00.000Z', { workload: 'device', input: { files: [] } }))
    const elsewhere = await all.save(envelopeAt('2025-01-04T00:00:00.000Z', on('/lab/y/a.csv')))
    const sibling = await all.save(envelopeAt('2025-01-05T00:00:00.000Z', on('/lab/x-other/a.csv')))
    // The desktop app's history: every run.
    expect((await all.list()).map((r) => r.id)).toEqual([sibling, elsewhere, device, example, inside])

    const scoped = new RunHistory(dir, undefined, { folders: ['/lab/x'], examples: '/cache/examples' })
    expect((await scoped.list()).map((r) => r.id)).toEqual([device, example, inside])
    expect((await scoped.open(inside)).input.files[0].path).toBe('/lab/x/sub/a.csv')
    for (const id of [elsewhere, sibling]) {
      const err = await failure(scoped.open(id))
      expect(err).toMatchObject({ code: 'invalid-argument', message: `no run "${id}" in the history` })
    }
  })
})

describe('defaultHistoryDir', () => {
  afterEach(() => vi.unstubAllEnvs())

  it('is PARALAB_HISTORY when set, else the platform\'s per-user data folder', () => {
    vi.stubEnv('PARALAB_HISTORY', '/tmp/my-history')
    expect(defaultHistoryDir()).toBe('/tmp/my-history')
    vi.stubEnv('PARALAB_HISTORY', '')
    vi.stubEnv('XDG_DATA_HOME', '/home/u/.data')
    const expected = { linux: '/home/u/.data/paralab/history', darwin: /Library\/Application Support\/paralab\/history$/, win32: /paralab[\\/]history$/ }[process.platform as 'linux']
    expect(defaultHistoryDir()).toMatch(expected)
  })
})

describe('Backend with a history folder', () => {
  const data = join(root, 'input.csv')
  beforeAll(() => writeFileSync(data, 'acc_x,acc_y\n1,2\n3,5\n4,4\n'))

  it('keeps every finished job before announcing it; opening the run gives its envelope', async () => {
    const backend = new Backend({ engines: ENGINES, historyDir: freshDir() })
    const listedAtDone = new Promise<{ event: JobEvent; ids: string[] }>((resolve) =>
      backend.jobs.on('event', async (event) => {
        if (event.type === 'done') resolve({ event, ids: (await backend.listRuns()).map((r) => r.id) })
      }),
    )
    const envelope = await backend.jobs.result(backend.startJob('stats', { files: [data], backends: ['serial'], repeat: 1 }))
    const { ids } = await listedAtDone
    expect(ids).toHaveLength(1)
    const [run] = await backend.listRuns()
    expect(run).toMatchObject({ workload: 'stats', createdAt: envelope.createdAt, summary: 'input.csv · serial', partial: false, thisSession: true })
    expect(await backend.openRun(run.id)).toEqual(envelope)
  })

  it('a history folder that cannot be written costs the run its place in the history, not its result', async () => {
    const blocker = join(root, 'a-file')
    writeFileSync(blocker, '')
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const backend = new Backend({ engines: ENGINES, historyDir: join(blocker, 'history') })
    const envelope = await backend.jobs.result(backend.startJob('stats', { files: [data], backends: ['serial'], repeat: 1 }))
    expect(envelope.results).toMatchObject({ files: [expect.objectContaining({ rows: 3 })] })
    expect(logged.mock.calls[0][0]).toMatch(/the run was not kept in the history/)
    expect(await backend.listRuns()).toEqual([])
    logged.mockRestore()
  })

  it('without one (one-off CLI runs) keeps nothing', async () => {
    const backend = new Backend({ engines: ENGINES })
    await backend.jobs.result(backend.startJob('stats', { files: [data], backends: ['serial'], repeat: 1 }))
    expect(await backend.listRuns()).toEqual([])
    expect((await failure(backend.openRun('20250101T000000000Z-stats-0000beef'))).message).toMatch(/keeps no run history/)
  })
})
