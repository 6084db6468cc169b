// What the tests of the dashboard at the studies' sizes share (test/e2e/layout-sizes.test.ts for
// correlation and shortest paths, test/e2e/landslide-sizes.test.ts for the tiled landslide): the two
// window sizes, reopening a run from the history, and every export of a run asked of the server with
// the server's resident memory measured around each.
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import type { WorkloadId } from '../../src/shared/workloads'
import { workload } from '../../src/shared/workloads'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import { type ApiClient, serveRss } from './api-client'

/** A small laptop's window and a large screen's. */
export const SIZES = [
  { width: 800, height: 600 },
  { width: 2560, height: 1440 },
] as const
export type WindowSize = (typeof SIZES)[number]

/** RSS that comes and goes with the JavaScript heap's growth and its collections, whatever the export. */
export const HEAP_SLACK = 32 * 2 ** 20

/** Opens the run `runId` of `view` from the history at `size`, the history then put away again. */
export async function reopenRun(page: Page, view: WorkloadId, runId: string, size: WindowSize): Promise<void> {
  await page.setViewportSize(size)
  // Narrow windows keep the history behind a button.
  const toggle = page.getByTestId('side-toggle')
  const open = page.getByTestId(`history-open-${runId}`)
  const expanded = async () => (await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) === 'true'
  if (!(await open.isVisible())) await toggle.click()
  await open.click()
  await page.getByTestId(`${view}-results`).waitFor({ timeout: 60_000 })
  if (await expanded()) await toggle.click()
  await expect.poll(expanded).toBe(false)
}

/** One export asked of the server: its name, its bytes, and how much the server's resident memory grew by it. */
export interface MeasuredExport {
  what: string
  bytes: number
  growth: number
}

/** Asks for one export; the server's resident memory afterwards, against before. */
export async function measuredExport(api: ApiClient, what: string, method: string, req: object): Promise<MeasuredExport> {
  const before = serveRss()
  const out = await api.call<{ base64?: string }>(method, req)
  const growth = serveRss() - before
  return { what, growth, bytes: out.base64 ? Buffer.byteLength(out.base64, 'base64') : 0 }
}

/** Every chart of a run (PNG, SVG), every table (CSV) and its envelope (JSON), as the dashboard offers them, measured. */
export async function runExports(api: ApiClient, view: WorkloadId, envelope: ResultEnvelope): Promise<MeasuredExport[]> {
  const def = workload(view)
  const asked: MeasuredExport[] = []
  for (const chart of def.charts(envelope.results as never, envelope as never))
    for (const format of ['png', 'svg'] as const) asked.push(await measuredExport(api, `${chart.name}.${format}`, 'exportChart', { chart: chart.spec, format, fileName: `${chart.name}.${format}` }))
  for (const table of def.tables(envelope.results as never)) asked.push(await measuredExport(api, `${table.name}.csv`, 'exportResults', { envelope, format: 'csv', table: table.name, fileName: `${table.name}.csv` }))
  asked.push(await measuredExport(api, 'results.json', 'exportResults', { envelope, format: 'json', fileName: 'results.json' }))
  return asked
}

/** Each export has bytes, and grew the server by less than a quarter of the data it draws, with room for the heap's own steps and a collection not yet run. */
export function expectEachWithin(asked: MeasuredExport[], dataBytes: number): void {
  for (const a of asked) {
    expect(a.bytes, a.what).toBeGreaterThan(0)
    expect(a.growth, `${a.what}: the server grew by ${(a.growth / 2 ** 20).toFixed(1)} MiB for ${(dataBytes / 2 ** 20).toFixed(0)} MiB of data`).toBeLessThan(dataBytes / 4 + HEAP_SLACK)
  }
}

/** The exports' sizes and growths, for the log. */
export const describeExports = (asked: MeasuredExport[]): string => asked.map((a) => `${a.what} ${(a.bytes / 2 ** 20).toFixed(1)} MiB, +${(a.growth / 2 ** 20).toFixed(1)} MiB`).join('; ')
