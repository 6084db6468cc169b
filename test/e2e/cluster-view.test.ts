// The dashboard on a real Slurm (test/helpers/slurm.ts: slurmctld and two slurmd on this host),
// `paralab serve` finding Slurm's commands on its PATH: a Statistics run submitted from its form
// with "Run on the cluster" becomes a job array whose tasks' progress bars move on the Cluster page
// (read from the tasks' folders), and whose merged results open in the Statistics view and in the
// history. And over the API itself: a request cannot choose where the run writes.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectApi, type ApiClient } from '../helpers/api-client'
import { launchChromium } from '../helpers/browser'
import { startServe, type ServeProcess } from '../helpers/serve'
import { slurmMissing, startSlurm, type SlurmCluster } from '../helpers/slurm'
import { paralab } from './paralab'

const missing = slurmMissing()

describe.skipIf(missing)('the Cluster page on Slurm', () => {
  let cluster: SlurmCluster
  let dir: string
  let data: string
  let runs: string
  let serve: ServeProcess
  let api: ApiClient
  let browser: Browser
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    cluster = await startSlurm()
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'paralab-cluster-view-')))
    data = join(dir, 'data')
    runs = join(dir, 'cluster-runs')
    mkdirSync(data)
    // A small recording, and one whose serial statistics over 20 prefixes, 300 times each, take some seconds.
    for (const [name, rows, seed] of [['a.csv', 3000, 1], ['slow.csv', 200_000, 3]] as const)
      expect(paralab(['generate', 'acc', join(data, name), '--rows', String(rows), '--seed', String(seed)]).code).toBe(0)
    serve = await startServe(['--data', data], { ...cluster.env, PARALAB_CLUSTER_RUNS: runs, PARALAB_HISTORY: join(dir, 'history'), PARALAB_EXAMPLES: join(dir, 'examples') })
    api = await connectApi(serve)
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
  }, 180_000)

  afterAll(async () => {
    api?.close()
    await browser?.close()
    await serve?.stop()
    cluster?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('refuses a request that names a folder to write, or anything else the server chooses', async () => {
    const files = [join(data, 'a.csv')]
    const refused = async (args: unknown[], message: RegExp) => {
      const e = await api.call('submitClusterJob', ...args).then(() => null, (e: { code: string; message: string }) => e)
      expect(e, JSON.stringify(args)).toMatchObject({ code: 'invalid-argument', message: expect.stringMatching(message) })
    }
    const elsewhere = join(dir, 'elsewhere')
    await refused(['stats', { files }, { out: elsewhere }], /cluster request has no "out".*the server chooses the run's folder/)
    await refused(['stats', { files }, { dir: elsewhere, time: '5' }], /no "dir"/)
    await refused(['stats', { files }, { sbatchArgs: [`--output=${elsewhere}/x.log`] }], /no "sbatchArgs"/)
    await refused(['stats', { files, out: elsewhere }, {}], /out/)
    await refused(['stats', { files }, { time: 'soon' }], /--time must be minutes/)
    await refused(['stats', { files }, { ntasks: 0 }], /--ntasks must be a whole number from 1/)
    await refused(['stats', { files }, { partition: 'debug; rm -rf ~' }], /--partition must be a partition name/)
    // The workload's own paths to write are the command line's only.
    await refused(['paths', { files: [join(data, 'a.csv')], output: join(elsewhere, 'd.bin') }, {}], /output can only be given on the command line/)
    // Inputs outside the data folders are refused as for a local run.
    await refused(['stats', { files: ['/etc/passwd'] }, {}], /outside|not .*data/i)
    expect(existsSync(elsewhere)).toBe(false)
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([])
    expect(await api.call('clusterInfo')).toEqual({ available: true })
  })

  it('submits a form\'s run, moves its tasks\' progress bars on the Cluster page, and opens its merged results in the view and the history', async () => {
    await page.goto(serve.url)
    await page.getByTestId('nav-stats').click()
    for (const f of ['a.csv', 'slow.csv']) await page.getByTestId(`stats-file-${f}`).check()
    await page.getByTestId('stats-backend-workers-simd').uncheck()
    await page.getByTestId('stats-backend-serial').check()
    await page.getByTestId('stats-repeat').fill('300')
    await page.getByTestId('stats-batches').fill('20')
    await page.getByTestId('stats-cluster-enabled').check()
    // A field Slurm would refuse is named by its label, and Run waits for it.
    await page.getByTestId('stats-cluster-time').fill('soon')
    await expect.poll(() => page.getByTestId('stats-cluster-problem').textContent()).toMatch(/^Time limit must be minutes/)
    expect(await page.getByTestId('stats-run').isDisabled()).toBe(true)
    await page.getByTestId('stats-cluster-time').fill('10')
    await page.getByTestId('stats-cluster-arrayParallelism').fill('2')
    await page.getByTestId('stats-run').click()
    const submitted = page.getByTestId('stats-cluster-submitted')
    await submitted.waitFor({ timeout: 30_000 })
    const jobId = /Submitted job (\d+)/.exec((await submitted.textContent())!)![1]
    // The run's folder is the server's choice, under its cluster runs folder.
    const folders = readdirSync(runs)
    expect(folders).toHaveLength(1)
    expect(await submitted.textContent()).toContain(join(runs, folders[0]))

    await page.getByTestId('nav-cluster').click()
    const run = page.getByTestId(`cluster-run-${jobId}`)
    await run.waitFor({ timeout: 30_000 })
    expect(await run.textContent()).toContain('Statistics')
    // The slow file's task (index 1): its bar, read from its folder's progress events, moves while it runs.
    const bar = page.getByTestId(`cluster-progress-${jobId}_1`)
    const seen = new Set<number>()
    const end = Date.now() + 120_000
    while (Date.now() < end) {
      const state = await page.getByTestId(`cluster-task-${jobId}_1`).locator('td').first().textContent().catch(() => '')
      const value = Number(await bar.getAttribute('aria-valuenow').catch(() => null))
      if (state?.startsWith('RUNNING') && value > 0 && value < 100) seen.add(value)
      if (state?.startsWith('COMPLETED')) break
      await page.waitForTimeout(300)
    }
    expect([...seen].length, `progress values seen while running: ${[...seen]}`).toBeGreaterThanOrEqual(2)
    expect(Math.max(...seen)).toBeGreaterThan(Math.min(...seen))

    // The merge ends: its results open from the Cluster page, and the view that submitted the run already shows them.
    const open = page.getByTestId(`cluster-open-${jobId}`)
    await open.waitFor({ timeout: 90_000 })
    expect(await page.getByTestId(`cluster-state-${jobId}`).textContent()).toBe('COMPLETED')
    for (const t of [0, 1]) expect(await page.getByTestId(`cluster-progress-${jobId}_${t}`).getAttribute('aria-valuenow')).toBe('100')
    // The view that submitted the run shows them as soon as they are kept.
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-results').waitFor()
    expect(await page.getByTestId('stats-cluster-run').textContent()).toMatch(new RegExp(`^Ran on the cluster: job ${jobId}, 2 tasks on n[12]`))
    const results = await page.getByTestId('stats-results').textContent()
    for (const f of ['a.csv', 'slow.csv']) expect(results).toContain(f)
    // Opened from the Cluster page, they come from the history into the same view.
    await page.getByTestId('nav-cluster').click()
    await open.click()
    await page.getByTestId('stats-results').waitFor()
    expect(await page.getByTestId('stats-cluster-run').isVisible()).toBe(true)
    // In the history like a local run.
    const kept = page.locator('[data-testid^="history-run-"]')
    await expect.poll(() => kept.count()).toBe(1)
    expect(await kept.first().textContent()).toContain('a.csv')
    expect(pageErrors).toEqual([])
  })

  it('keeps the results of a run that ended while no server followed it, once Slurm no longer lists it', async () => {
    // The finished run's folder as a server started later finds it: not yet kept, and unknown to squeue (its folder is another).
    const [done] = readdirSync(runs)
    const later = join(runs, `${done}-later`)
    cpSync(join(runs, done), later, { recursive: true })
    rmSync(join(later, '.dashboard-history'))
    api.close()
    await serve.stop()
    serve = await startServe(['--data', data], { ...cluster.env, PARALAB_CLUSTER_RUNS: runs, PARALAB_HISTORY: join(dir, 'history-later'), PARALAB_EXAMPLES: join(dir, 'examples') })
    api = await connectApi(serve)
    const listed = await api.call<any[]>('listClusterJobs')
    const found = listed.find((r) => r.dir === later)
    expect(found).toMatchObject({ workload: 'stats', state: 'COMPLETED', merge_state: 'COMPLETED', nodes: expect.arrayContaining([expect.stringMatching(/^n[12]$/)]) })
    expect(found.tasks.map((t: any) => [t.index, t.state, t.progress?.fraction])).toEqual([[0, 'COMPLETED', 1], [1, 'COMPLETED', 1]])
    expect(found.runs).toHaveLength(1)
    const history = await api.call<any[]>('listRuns')
    expect(history.map((r) => r.id)).toEqual(found.runs)
    // Kept once: the folder remembers.
    expect((await api.call<any[]>('listClusterJobs')).find((r) => r.dir === later).runs).toEqual(found.runs)
    expect(await api.call<any[]>('listRuns')).toHaveLength(1)
  })

  it('a FIFO planted as a listed task\'s progress events freezes neither the Cluster page\'s listing nor any other request', async () => {
    const [done] = readdirSync(runs).filter((n) => !n.endsWith('-later'))
    // The run submitted above, once it has ended (its tasks write their events no more).
    await expect.poll(async () => (await api.call<any[]>('listClusterJobs')).find((r) => r.dir === join(runs, done))?.merge_state, { timeout: 180_000, interval: 1000 }).toBe('COMPLETED')
    const progress = join(runs, done, 'tasks', '1', 'progress.ndjson')
    rmSync(progress)
    execFileSync('mkfifo', [progress])
    // Bounded: a request that waits on the FIFO (nothing ever writes to it) fails the test instead of hanging it.
    const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, fail) => setTimeout(() => fail(new Error('no answer within 10 s')), 10_000))])
    const page = fetch(serve.url).then((r) => r.status, (e: Error) => e.message)
    const listed = await within(Promise.all(Array.from({ length: 5 }, () => api.call<any[]>('listClusterJobs'))))
    expect(await within(page)).toBe(200)
    for (const listing of listed) {
      const run = listing.find((r) => r.dir === join(runs, done))
      expect(run.tasks.map((t: any) => [t.index, t.progress?.fraction ?? null])).toEqual([[0, 1], [1, null]])
    }
    expect(await within(api.call('listDataFiles'))).toEqual(expect.any(Array))
  }, 240_000)

  it('in the desktop app, the server\'s page talks to the server and offers the way back', async () => {
    // What the app's preload gives every page of its window; only its connect functions are used on a server's page.
    const desktop = await browser.newPage({ viewport: { width: 1360, height: 900 } })
    await desktop.addInitScript(() => {
      const w = window as unknown as { paralab: object; connects: (string | null)[] }
      w.connects = []
      w.paralab = { connectServer: async (url: string | null) => void w.connects.push(url), onConnectRequest: () => () => {} }
    })
    await desktop.goto(serve.url)
    await desktop.getByTestId('server-where').waitFor()
    expect(await desktop.getByTestId('server-where').textContent()).toBe(new URL(serve.api).host + new URL(serve.api).pathname.replace(/\/api$/, ''))
    // Over serve's WebSocket: its Slurm, its history.
    await desktop.getByTestId('nav-cluster').click()
    await desktop.getByTestId('cluster-page').locator('article').first().waitFor()
    await desktop.getByTestId('server-disconnect').click()
    await expect.poll(() => desktop.evaluate(() => (window as unknown as { connects: unknown[] }).connects)).toEqual([null])
    await desktop.close()
  })
})
