// @vitest-environment happy-dom
// The History panel and the comparison of runs, in the dashboard shell with the fake backend: runs
// listed by session, reopened in their workload's view, compared side by side, refreshed as jobs end.
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../src/renderer/App.vue'
import { runTime } from '../../src/renderer/composables/useHistory'
import { useJob } from '../../src/renderer/composables/useJob'
import type { DeviceBenchResult } from '../../src/shared/device'
import type { DeviceResult } from '../../src/shared/workloads/device'
import { timingOf, type ResultEnvelope } from '../../src/shared/workloads/envelope'
import { envelopeOf } from './envelope'
import { FakeApi } from './fake-api'
import { mountWith } from './mount'
import { statsEnvelope, statsFile, statsResult } from './stats-fixture'

const acc = statsFile('/data/acc.csv', { acc_x: [1, 2, 3, 4], acc_y: [2, 4, 4, 8] }, ['serial', 'simd'], [2, 4])

/** A stats run with its own timings and start time. */
function statsRun(createdAt: string, timings: Record<string, number[]>, params: Record<string, unknown> = {}): ResultEnvelope {
  const env = statsEnvelope(statsResult(acc), params)
  return { ...env, createdAt, timings: Object.fromEntries(Object.entries(timings).map(([b, ms]) => [b, timingOf(ms)])) }
}

const adapter = { vendor: 'google', architecture: 'swiftshader', device: 'SwiftShader Device', description: 'SwiftShader Device', isSoftware: true, source: 'SwiftShader' }
const bench = { adapter, read_bandwidth_GB_per_s: 12.5, fma_f32_GFLOP_per_s: 80, upload_GB_per_s: 3.25, readback_GB_per_s: 2.5, read_bytes: 64e6, transfer_bytes: 32e6, fma_flops: 1e9, timing: 'wall clock', repeats: 3 } as DeviceBenchResult
const deviceRun = envelopeOf<DeviceResult, unknown>('device', { measure: true, readMb: 16 }, { info: { available: true, features: [], limits: {} }, bench })

/** A backend with four runs: two of this session (stats), two earlier (device, and a cancelled stats run). */
function historyApi() {
  const api = new FakeApi()
  const earlierStats = api.keep({ ...statsRun('2025-01-01T10:00:00.000Z', { serial: [9, 10, 11] }, { repeat: 3 }), partial: true }, { thisSession: false, summary: 'acc.csv · serial' })
  const device = api.keep({ ...deviceRun, createdAt: '2025-01-02T10:00:00.000Z' }, { thisSession: false, summary: 'upload, read bandwidth' })
  const slow = api.keep(statsRun('2025-01-03T10:00:00.000Z', { serial: [4, 5, 8], simd: [2, 3, 3] }, { repeat: 3 }), { summary: 'acc.csv · serial, simd' })
  const fast = api.keep(statsRun('2025-01-03T11:00:00.000Z', { serial: [4, 4, 4], simd: [1, 2, 6] }, { repeat: 5, precision: 'f32' }), { summary: 'acc.csv · serial, simd' })
  return { api, runs: { earlierStats, device, slow, fast } }
}

const testid = (w: VueWrapper, id: string) => w.get(`[data-testid="${id}"]`)
/** Whether the view holding `id` is the one shown (views stay mounted, hidden by v-show). */
const shown = (w: VueWrapper, id: string) => (testid(w, id).element as HTMLElement).closest<HTMLElement>('.main > *')!.style.display !== 'none'

beforeEach(() => {
  // happy-dom has no 2D canvas: Chart.js says so on the console, which is expected here.
  vi.spyOn(console, 'error').mockImplementation(() => {})
  window.location.hash = ''
})
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('History panel', () => {
  it('lists this session\'s runs above earlier ones, each with its workload, time, summary and partial mark', async () => {
    const { api, runs } = historyApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    const panel = testid(wrapper, 'history')
    expect(panel.findAll('h3').map((h) => h.text())).toEqual(['This session', 'Earlier'])
    const rows = panel.findAll('[data-testid^="history-run-"]')
    expect(rows.map((r) => r.attributes('data-testid'))).toEqual([runs.fast, runs.slow, runs.device, runs.earlierStats].map((r) => `history-run-${r.id}`))
    expect(rows[0].get('.what').text()).toContain('Statistics')
    expect(rows[0].get('.when').text()).toBe(runTime(runs.fast.createdAt))
    expect(rows[0].get('.summary').text()).toBe('acc.csv · serial, simd')
    expect(rows[2].get('.what').text()).toContain('Device')
    expect(rows.map((r) => r.find('.partial').exists())).toEqual([false, false, false, true])
    expect(rows[3].get('.partial').text()).toBe('cancelled')
  })

  it('lists each run\'s inputs with their format and sha256, in the row and in its tooltip', async () => {
    const api = new FakeApi()
    const line = 'acc.csv · csv · made by paralab generate acc --seed 1 · sha256 85fdc245772284bb4e343ed0a8eab0d6240720f63c3c1c5d04d14acdc0fa1443'
    const run = api.keep(statsRun('2025-01-03T10:00:00.000Z', { serial: [4] }), { summary: 'acc.csv · serial', provenance: [line] })
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    expect(testid(wrapper, `history-input-${run.id}-0`).text()).toBe(line)
    expect(testid(wrapper, `history-open-${run.id}`).attributes('title')).toContain(`\n${line}`)
  })

  it('says when there are no runs yet', async () => {
    const { wrapper } = mountWith(App, new FakeApi())
    await flushPromises()
    expect(testid(wrapper, 'history').text()).toContain('No runs yet')
    expect(testid(wrapper, 'history-compare').attributes('disabled')).toBeDefined()
  })

  it('opens a run in its workload\'s view as if it had just finished, switching to that view', async () => {
    const { api, runs } = historyApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    expect(shown(wrapper, 'run-bench')).toBe(true)
    // The Device view reads each workload's newest run (which backend was fastest): then the one clicked.
    const before = api.openedRuns.length
    await testid(wrapper, `history-open-${runs.slow.id}`).trigger('click')
    await flushPromises()
    expect(api.openedRuns.slice(before)).toEqual([runs.slow.id])
    expect(window.location.hash).toBe('#stats')
    expect(shown(wrapper, 'stats-run')).toBe(true)
    expect(testid(wrapper, 'stats-results').text()).toContain('acc.csv')
    expect(testid(wrapper, 'stats-reopened').text()).toContain('Reopened from the history')
    expect(wrapper.findAll('[data-testid="stats-result-backend-serial"]')).toHaveLength(1)

    // A device run goes to the Device view, with its figures.
    await testid(wrapper, `history-open-${runs.device.id}`).trigger('click')
    await flushPromises()
    expect(window.location.hash).toBe('#device')
    expect(testid(wrapper, 'bench-read-bandwidth').text()).toContain('12.5')
    expect(wrapper.find('[data-testid="device-reopened"]').exists()).toBe(true)
    // With the parameters it ran with.
    expect(wrapper.get<HTMLInputElement>('[data-testid="device-read-mb"]').element.value).toBe('16')
  })

  it('reopening a run puts its parameters back in the form, its files ticked, so that Run runs it again', async () => {
    const { api, runs } = historyApi()
    api.files = [{ path: '/data/other.csv', name: 'other.csv', bytes: 10 }]
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    await testid(wrapper, 'nav-stats').trigger('click')
    await testid(wrapper, 'stats-file-other.csv').setValue(true)
    await testid(wrapper, 'stats-repeat').setValue('7')
    await testid(wrapper, `history-open-${runs.fast.id}`).trigger('click')
    await flushPromises()
    const field = (id: string) => wrapper.get<HTMLInputElement>(`[data-testid="stats-${id}"]`).element
    expect(field('repeat').value).toBe('5')
    expect(field('precision').value).toBe('f32')
    expect(['serial', 'simd', 'workers', 'workers-simd', 'gpu'].filter((b) => field(`backend-${b}`).checked)).toEqual(['serial', 'simd'])
    // Its input, listed although the backend does not offer it now, and ticked; the earlier tick is gone.
    expect(field('file-acc.csv').checked).toBe(true)
    expect(field('file-other.csv').checked).toBe(false)
    await testid(wrapper, 'stats-run').trigger('click')
    await flushPromises()
    const reopened = (await api.openRun(runs.fast.id)).params as Record<string, unknown>
    expect(api.started.at(-1)!.params).toEqual(reopened)
  })

  it('a run the backend cannot open is reported, and the view stays as it was', async () => {
    const { api, runs } = historyApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    // Listed a moment ago, gone now (dropped by the history's bound, say).
    api.runs.splice(0, 1)
    await testid(wrapper, `history-open-${runs.fast.id}`).trigger('click')
    await flushPromises()
    expect(testid(wrapper, 'error-notice').text()).toBe(`Could not open the run: no run "${runs.fast.id}" in the history×`)
    expect(window.location.hash).toBe('')
    expect(shown(wrapper, 'run-bench')).toBe(true)
    expect(wrapper.find('[data-testid="stats-results"]').exists()).toBe(false)
  })

  it('exports a run\'s report from the list: its envelope as the history keeps it, a cancelled run\'s named partial', async () => {
    const { api, runs } = historyApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    await testid(wrapper, `history-report-${runs.slow.id}`).trigger('click')
    await testid(wrapper, `history-report-${runs.earlierStats.id}`).trigger('click')
    await flushPromises()
    const opened = (id: string) => api.runs.find((r) => r.summary.id === id)!.envelope
    expect(api.resultExports).toEqual([
      { envelope: opened(runs.slow.id), format: 'html', fileName: `stats-${runs.slow.id.slice(0, 15)}-report.html` },
      { envelope: opened(runs.earlierStats.id), format: 'html', fileName: `stats-${runs.earlierStats.id.slice(0, 15)}-report-partial.html` },
    ])
    // Reports leave the view as it was.
    expect(window.location.hash).toBe('')
    // A run gone from the history by now is reported, and nothing is exported.
    api.runs.splice(0, 1)
    await testid(wrapper, `history-report-${runs.fast.id}`).trigger('click')
    await flushPromises()
    expect(testid(wrapper, 'error-notice').text()).toBe(`The run could not be read for its report: no run "${runs.fast.id}" in the history×`)
    expect(api.resultExports).toHaveLength(2)
  })

  it('refreshes the list when a job ends, so the run just finished is there', async () => {
    const { api } = historyApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    expect(wrapper.findAll('[data-testid^="history-run-"]')).toHaveLength(4)
    const env = statsRun('2025-01-04T09:00:00.000Z', { serial: [1, 2, 3] })
    const kept = api.keep(env, { summary: 'acc.csv · serial' })
    api.emit({ type: 'progress', jobId: 'j1', workload: 'stats', phase: 'computing', fraction: 0.5 })
    await flushPromises()
    expect(wrapper.findAll('[data-testid^="history-run-"]')).toHaveLength(4)
    api.emit({ type: 'done', jobId: 'j1', workload: 'stats', envelope: env })
    await flushPromises()
    expect(wrapper.findAll('[data-testid^="history-run-"]')[0].attributes('data-testid')).toBe(`history-run-${kept.id}`)
  })
})

describe('Comparing runs', () => {
  it('compares only two or more runs of one workload', async () => {
    const { api, runs } = historyApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    const compare = () => testid(wrapper, 'history-compare')
    expect(compare().attributes('disabled')).toBeDefined()
    await testid(wrapper, `history-pick-${runs.fast.id}`).setValue(true)
    expect(compare().attributes('disabled')).toBeDefined()
    expect(compare().attributes('title')).toMatch(/two or more runs/)
    await testid(wrapper, `history-pick-${runs.device.id}`).setValue(true)
    expect(compare().attributes('disabled')).toBeDefined()
    expect(compare().attributes('title')).toBe('Only runs of one workload can be compared')
    await testid(wrapper, `history-pick-${runs.device.id}`).setValue(false)
    await testid(wrapper, `history-pick-${runs.slow.id}`).setValue(true)
    expect(compare().attributes('disabled')).toBeUndefined()
    expect(compare().text()).toBe('Compare (2)')
  })

  it('shows each backend\'s median, min and max per run side by side, and the parameters that differ', async () => {
    const { api, runs } = historyApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    for (const r of [runs.slow, runs.fast, runs.earlierStats]) await testid(wrapper, `history-pick-${r.id}`).setValue(true)
    await testid(wrapper, 'history-compare').trigger('click')
    await flushPromises()
    expect(shown(wrapper, 'run-comparison')).toBe(true)
    expect(wrapper.get<HTMLElement>('[data-testid="run-bench"]').element.closest<HTMLElement>('.main > *')!.style.display).toBe('none')
    const table = testid(wrapper, 'comparison-timings')
    // Newest first, as listed: fast, slow, the earlier (partial) one.
    const heads = table.findAll('thead th.run')
    expect(heads.map((th) => th.get('button').text())).toEqual([runs.fast, runs.slow, runs.earlierStats].map((r) => runTime(r.createdAt)))
    expect(heads.map((th) => th.find('.partial').exists())).toEqual([false, false, true])
    // Rows are matched by input and backend.
    const row = (b: string) => testid(wrapper, `comparison-row-/data/acc.csv: ${b}`)
    const cells = (b: string) => row(b).findAll('td.figure')
    expect(cells('serial').map((td) => td.text())).toEqual(['4', '4', '4', '5', '4', '8', '10', '9', '11'])
    expect(cells('simd').map((td) => td.text())).toEqual(['2', '1', '6', '3', '2', '3', '—', '—', '—'])
    expect(row('serial').get('[data-testid="comparison-unit"]').text()).toBe('ms')
    // The lowest median per backend stands out.
    expect(cells('serial').map((td) => td.classes('best'))).toEqual([true, false, false, false, false, false, false, false, false])
    expect(cells('simd')[0].classes('best')).toBe(true)
    // Each run's checks beside its times: the same data, the same CV and MAD.
    const checks = row('serial').findAll('[data-testid="comparison-checks"]')
    expect(checks[0].findAll('.check').map((c) => c.text())).toEqual(['precision f64', 'acc_x CV 0.447214', 'acc_x MAD 1', 'acc_y CV 0.484322', 'acc_y MAD 1'])
    expect(row('serial').find('.differs').exists()).toBe(false)
    const params = testid(wrapper, 'comparison-params')
    expect(params.findAll('tbody tr').map((tr) => tr.get('th').text())).toEqual(['Precision', 'Repeat'])
    expect(testid(wrapper, 'comparison-param-repeat').findAll('td').map((td) => td.text())).toEqual(['5', '3', '3'])
    expect(testid(wrapper, 'comparison-param-precision').findAll('td').map((td) => td.text())).toEqual(['f32', 'f64', 'f64'])

    // A run's time opens it; Close goes back to the view.
    await testid(wrapper, `comparison-open-${runs.slow.id}`).trigger('click')
    await flushPromises()
    expect(wrapper.find('[data-testid="run-comparison"]').exists()).toBe(false)
    expect(shown(wrapper, 'stats-results')).toBe(true)
  })

  it('Close and the navigation both leave the comparison', async () => {
    const { api, runs } = historyApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    for (const r of [runs.slow, runs.fast]) await testid(wrapper, `history-pick-${r.id}`).setValue(true)
    await testid(wrapper, 'history-compare').trigger('click')
    await flushPromises()
    expect(testid(wrapper, 'nav-device').attributes('aria-current')).toBeUndefined()
    await testid(wrapper, 'comparison-close').trigger('click')
    expect(wrapper.find('[data-testid="run-comparison"]').exists()).toBe(false)
    expect(shown(wrapper, 'run-bench')).toBe(true)
    await testid(wrapper, 'history-compare').trigger('click')
    await flushPromises()
    await testid(wrapper, 'nav-stats').trigger('click')
    expect(wrapper.find('[data-testid="run-comparison"]').exists()).toBe(false)
    expect(shown(wrapper, 'stats-run')).toBe(true)
  })
})

describe('runTime', () => {
  it('gives the time alone for today\'s runs, the date as well for older ones', () => {
    const now = new Date(2025, 4, 6, 12, 0, 0)
    expect(runTime(new Date(2025, 4, 6, 9, 5, 7).toISOString(), now)).toBe('09:05:07')
    expect(runTime(new Date(2025, 3, 30, 23, 59, 1).toISOString(), now)).toBe('2025-04-30 23:59:01')
  })
})

describe('useJob show', () => {
  it('shows a reopened envelope as a finished job\'s, until a job of the view replaces it', async () => {
    const api = new FakeApi()
    const job = useJob(api, 'stats')
    await job.start({ files: ['/data/acc.csv'] })
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'stats', error: { code: 'io', message: 'disk full' } })
    expect(job.error.value).not.toBeNull()
    const opened = statsRun('2025-01-01T00:00:00.000Z', { serial: [1] })
    job.show(opened)
    expect(job.envelope.value).toBe(opened)
    expect(job.result.value).toBe(opened.results)
    expect(job.error.value).toBeNull()
    expect(job.reopened.value).toBe(true)
    // A new job clears it; the job's own envelope is not a reopened one.
    await job.start({ files: ['/data/acc.csv'] })
    expect(job.envelope.value).toBeNull()
    expect(job.reopened.value).toBe(false)
    // Opened while a job runs: shown now, replaced when the job ends.
    job.show(opened)
    expect(job.running.value).toBe(true)
    const own = statsRun('2025-01-02T00:00:00.000Z', { serial: [2] })
    api.emit({ type: 'done', jobId: 'job-2', workload: 'stats', envelope: own })
    expect(job.envelope.value).toBe(own)
    expect(job.reopened.value).toBe(false)
  })
})
