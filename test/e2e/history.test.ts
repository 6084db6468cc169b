// The run history over `paralab serve`: a finished job is listed (newest first) and opens as the
// envelope its 'done' event carried; a restarted server lists it as an earlier session's; hostile
// ids are refused over the wire; and in Chromium the History panel reopens and compares runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import type { Browser } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'

let root: string
let data: string
let history: string
/** The id of the earliest run (repeat 1). */
let first: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'paralab-e2e-history-'))
  data = join(root, 'data')
  history = join(root, 'history')
  mkdirSync(data)
  writeFileSync(join(data, 'a.csv'), 'acc_x,acc_y\n1,2\n3,5\n4,4\n2,8\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A WebSocket client of one serve process: calls and the job events it saw. */
async function connect(serve: ServeProcess) {
  const ws = new WebSocket(`${serve.api}?token=${serve.token}`)
  await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)))
  const events: any[] = []
  const replies = new Map<number, (m: any) => void>()
  let nextId = 1
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString())
    if (m.event === 'job') events.push(m.data)
    else replies.get(m.id)?.(m)
  })
  const call = (method: string, args: unknown[]) =>
    new Promise<any>((ok) => {
      const id = nextId++
      replies.set(id, ok)
      ws.send(JSON.stringify({ id, method, args }))
    })
  const run = async (params: Record<string, unknown>) => {
    const { result: jobId } = await call('startJob', ['stats', { files: [join(data, 'a.csv')], backends: ['serial'], ...params }])
    await expect.poll(() => events.find((e) => e.jobId === jobId && e.type === 'done'), { timeout: 60_000 }).toBeTruthy()
    return events.find((e) => e.jobId === jobId && e.type === 'done').envelope
  }
  return { call, run, close: () => ws.close() }
}

describe('run history over paralab serve', () => {
  it('lists a finished job first and opens it as the envelope its done event carried', async () => {
    const serve = await startServe(['--data', data], { PARALAB_HISTORY: history })
    const api = await connect(serve)
    try {
      expect((await api.call('listRuns', [])).result).toEqual([])
      const a = await api.run({ repeat: 1 })
      const b = await api.run({ repeat: 2 })
      const { result: runs } = await api.call('listRuns', [])
      expect(runs.map((r: any) => r.createdAt)).toEqual([b.createdAt, a.createdAt])
      expect(runs[0]).toEqual({ id: expect.stringMatching(/^\d{8}T\d{9}Z-stats-[0-9a-f]{8}$/), workload: 'stats', createdAt: b.createdAt, summary: 'a.csv · serial', partial: false, provenance: [`a.csv · csv · sha256 ${b.input.files[0].sha256}`], thisSession: true })
      expect(b.input.files[0].sha256).toMatch(/^[0-9a-f]{64}$/)
      expect((await api.call('openRun', [runs[0].id])).result).toEqual(b)
      expect((await api.call('openRun', [runs[1].id])).result).toEqual(a)
      first = runs[1].id
      // One file per run in the history folder, nothing else.
      expect(readdirSync(history).sort()).toEqual(runs.map((r: any) => `${r.id}.json`).sort())
    } finally {
      api.close()
      await serve.stop()
    }
  })

  it('a restarted server lists the runs as earlier ones and still opens them', async () => {
    const serve = await startServe(['--data', data], { PARALAB_HISTORY: history })
    const api = await connect(serve)
    try {
      const { result: runs } = await api.call('listRuns', [])
      expect(runs).toHaveLength(2)
      expect(runs.every((r: any) => !r.thisSession)).toBe(true)
      expect((await api.call('openRun', [first])).result.params.repeat).toBe(1)
    } finally {
      api.close()
      await serve.stop()
    }
  })

  it('refuses ids that are not run ids, and ids of runs it does not have', async () => {
    writeFileSync(join(root, 'secret.json'), '{"workload":"stats","createdAt":"x","timings":{},"input":{"files":[]}}')
    const serve = await startServe(['--data', data], { PARALAB_HISTORY: history })
    const api = await connect(serve)
    try {
      for (const id of ['../secret', '../x', join(root, 'secret'), join(root, 'secret.json'), 'x'.repeat(100_000), 42, null]) {
        const reply = await api.call('openRun', [id])
        expect(reply.error?.code, String(id).slice(0, 40)).toBe('invalid-argument')
        expect(reply.error.message).toMatch(/id must be a run id from listRuns/)
        expect(reply.error.message.length).toBeLessThan(200)
      }
      const missing = await api.call('openRun', ['20200101T000000000Z-stats-00000000'])
      expect(missing.error).toEqual({ code: 'invalid-argument', message: 'no run "20200101T000000000Z-stats-00000000" in the history' })
      expect((await api.call('listRuns', ['extra'])).error.code).toBe('bad-request')
    } finally {
      api.close()
      await serve.stop()
    }
  })
})

describe('History panel in Chromium', () => {
  let serve: ServeProcess
  let browser: Browser
  const pageErrors: string[] = []

  beforeAll(async () => {
    serve = await startServe(['--data', data], { PARALAB_HISTORY: history })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
  })

  it('lists this session\'s run above earlier ones, reopens a run in its view and compares two', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(serve.url)
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-file-a.csv').check()
    await page.getByTestId('stats-repeat').fill('3')
    await page.getByTestId('stats-run').click()
    await page.getByTestId('stats-results').waitFor({ timeout: 60_000 })

    const panel = page.getByTestId('history')
    await expect.poll(() => panel.locator('[data-testid^="history-run-"]').count()).toBe(3)
    const groups = await panel.locator('h3').allInnerTexts()
    expect(groups.map((g) => g.toLowerCase())).toEqual(['this session', 'earlier'])
    const newest = panel.locator('[data-testid^="history-run-"]').first()
    // The dashboard's default backend, where the earlier runs asked for serial.
    expect(await newest.innerText()).toContain('a.csv · workers-simd')

    // The earliest run (repeat 1) opens in the Statistics view, from the Device view.
    await page.getByTestId('nav-device').click()
    await page.getByTestId(`history-open-${first}`).click()
    await page.getByTestId('stats-reopened').waitFor()
    expect(await page.getByTestId('nav-stats').getAttribute('aria-current')).toBe('page')
    expect(await page.getByTestId('stats-results').isVisible()).toBe(true)

    await page.getByTestId(`history-pick-${first}`).check()
    await newest.locator('input[type="checkbox"]').check()
    await page.getByTestId('history-compare').click()
    const timings = page.getByTestId('comparison-timings')
    await timings.waitFor()
    expect(await timings.locator('thead tr').nth(1).locator('th').allInnerTexts()).toEqual(['median', 'min', 'max', 'checks', 'median', 'min', 'max', 'checks'])
    // Every backend of either run on the file, matched by file and backend; a run that did not time one shows dashes.
    expect(await timings.locator('tbody tr:not(.input) th').allInnerTexts()).toEqual(['workers-simd', 'serial'])
    const serial = timings.locator('tbody tr[data-testid$=": serial"]')
    expect(await serial.getAttribute('data-testid')).toMatch(/^comparison-row-.*a\.csv: serial$/)
    const figures = await serial.locator('td.figure').allInnerTexts()
    expect(figures.slice(0, 3)).toEqual(['—', '—', '—'])
    expect(figures.slice(3)).toEqual([expect.stringMatching(/^[\d.]+$/), expect.stringMatching(/^[\d.]+$/), expect.stringMatching(/^[\d.]+$/)])
    // Its checks beside its times: precision, each column's CV and MAD.
    expect(await serial.getByTestId('comparison-checks').nth(1).innerText()).toMatch(/precision f64[\s\S]* CV [\s\S]* MAD /)
    expect(await page.getByTestId('comparison-param-repeat').locator('td').allInnerTexts()).toEqual(['3', '1'])
    await page.getByTestId('comparison-close').click()
    expect(await page.getByTestId('run-comparison').count()).toBe(0)
    expect(await page.getByTestId('stats-results').isVisible()).toBe(true)
    expect(pageErrors).toEqual([])
  })
})
