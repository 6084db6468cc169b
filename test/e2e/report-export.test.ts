// "Export report" in the dashboard, over `paralab serve` in Chromium: the results' head of a view
// and a run's button in History each download the run's report, one self-contained HTML file that
// opens offline with every chart; the backend refuses a tampered envelope sent in its place.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import WebSocket from 'ws'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { workload } from '../../src/shared/workloads'
import { launchChromium } from '../helpers/browser'
import { startServe, type ServeProcess } from '../helpers/serve'

const root = mkdtempSync(join(tmpdir(), 'paralab-e2e-report-export-'))
const data = join(root, 'data')
let serve: ServeProcess
let browser: Browser
let page: Page
const pageErrors: string[] = []

const envelopeIn = (html: string) => JSON.parse(/<script type="application\/json" id="paralab-envelope">([\s\S]*?)<\/script>/.exec(html)![1])

beforeAll(async () => {
  mkdirSync(data)
  writeFileSync(join(data, 'acc.csv'), 'acc_x,acc_y\n1,2\n3,5\n4,4\n2,8\n7,1\n')
  serve = await startServe(['--data', data], { PARALAB_HISTORY: join(root, 'history') })
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
})
afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  rmSync(root, { recursive: true, force: true })
})

/** Clicks `testId` and returns the downloaded file's name, path and text. */
async function download(testId: string): Promise<{ name: string; path: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()])
  const path = join(root, file.suggestedFilename())
  await file.saveAs(path)
  return { name: file.suggestedFilename(), path, text: readFileSync(path, 'utf8') }
}

describe('Export report in the dashboard', () => {
  let fromView: { name: string; path: string; text: string }

  it('the view\'s results head downloads the run\'s report', async () => {
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-file-acc.csv').check()
    await page.getByTestId('stats-run').click()
    await page.getByTestId('stats-results').waitFor({ timeout: 60_000 })
    fromView = await download('export-report')
    expect(fromView.name).toBe('stats-report.html')
    expect(fromView.text).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; img-src data:; style-src &#39;unsafe-inline&#39;">`)
    const env = envelopeIn(fromView.text)
    expect(env.workload).toBe('stats')
    expect(env.input.files.map((f: { path: string }) => f.path)).toEqual([join(data, 'acc.csv')])
  })

  it('History downloads the same run\'s report', async () => {
    const run = page.getByTestId('history').locator('[data-testid^="history-run-"]').first()
    const id = (await run.getAttribute('data-testid'))!.replace('history-run-', '')
    const fromHistory = await download(`history-report-${id}`)
    expect(fromHistory.name).toMatch(/^stats-\d{8}T\d{6}-report\.html$/)
    expect(envelopeIn(fromHistory.text)).toEqual(envelopeIn(fromView.text))
    expect(pageErrors).toEqual([])
  })

  it('the downloaded report opens offline from disk with every chart and makes no request', async () => {
    const context = await browser.newContext({ offline: true })
    const offline = await context.newPage()
    const requests: string[] = []
    offline.on('request', (r) => requests.push(r.url()))
    await offline.goto(pathToFileURL(fromView.path).href)
    const env = envelopeIn(fromView.text)
    expect(await offline.locator('figure.chart svg').count()).toBe(workload('stats').charts(env.results, env).length)
    expect(requests).toEqual([pathToFileURL(fromView.path).href])
    await context.close()
  })

  it('the backend refuses a tampered envelope, naming the field', async () => {
    const env = envelopeIn(fromView.text)
    env.input.files[0].path = '/srv/data/../../etc/passwd'
    const ws = new WebSocket(`${serve.api}?token=${serve.token}`)
    await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)))
    const reply = await new Promise<any>((ok) => {
      ws.on('message', (raw) => {
        const m = JSON.parse(raw.toString())
        if (m.id === 1) ok(m)
      })
      ws.send(JSON.stringify({ id: 1, method: 'exportResults', args: [{ envelope: env, format: 'html', fileName: 'r.html' }] }))
    })
    ws.close()
    expect(reply.error).toMatchObject({ code: 'invalid-input', message: expect.stringContaining('input.files[0].path "/srv/data/../../etc/passwd" is not a resolved path') })
  })
})
