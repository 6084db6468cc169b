// @vitest-environment happy-dom
// Error banners: one per thing that went wrong, replaced by that thing's next outcome rather than
// piled up; a view's new job (or a reopened run) takes its earlier job error away; each is dismissable.
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../src/renderer/App.vue'
import { createErrorLog } from '../../src/renderer/composables/errors'
import { ApiError } from '../../src/shared/errors'
import { FakeApi } from './fake-api'
import { mountWith } from './mount'
import { statsEnvelope, statsFile, statsResult } from './stats-fixture'

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
  window.location.hash = ''
})
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('error log', () => {
  it('a newer report of one context replaces the earlier; other contexts stay', () => {
    const log = createErrorLog()
    log.report(new ApiError('io', 'disk full'), 'Statistics failed')
    log.report(new ApiError('io', 'no adapter'), 'Device benchmark failed')
    log.report(new ApiError('invalid-input', 'bad column'), 'Statistics failed')
    expect(log.notices.value.map((n) => n.message)).toEqual(['Device benchmark failed: no adapter', 'Statistics failed: bad column'])
    log.clear('Statistics failed')
    expect(log.notices.value.map((n) => n.message)).toEqual(['Device benchmark failed: no adapter'])
  })

  it('says one cause once, whatever failed with it, and dismisses notices one by one', () => {
    const log = createErrorLog()
    const lost = 'The connection to the Paralab server closed (code 1006).'
    log.report(lost)
    log.report({ code: 'io', message: lost }, 'Could not list the data files')
    log.report(new Error('boom'), 'Export of chart failed')
    expect(log.notices.value.map((n) => n.message)).toEqual([lost, 'Export of chart failed: boom'])
    log.dismiss(log.notices.value[0].id)
    expect(log.notices.value.map((n) => n.message)).toEqual(['Export of chart failed: boom'])
  })
})

/** The shell with a data file to run statistics on. */
async function dashboard(api = new FakeApi()) {
  api.files = [{ path: '/data/a.csv', name: 'a.csv', bytes: 640 }]
  const { wrapper } = mountWith(App, api)
  await flushPromises()
  await wrapper.get('[data-testid="stats-file-a.csv"]').setValue(true)
  return { api, wrapper }
}

const notices = (w: VueWrapper) => w.findAll('[data-testid="error-notice"]').map((n) => n.get('.message').text())

async function click(w: VueWrapper, testid: string) {
  await w.get(`[data-testid="${testid}"]`).trigger('click')
  await flushPromises()
}

describe('job errors in the banner', () => {
  it('a view\'s next job takes its earlier error away, and a new failure shows alone', async () => {
    const { api, wrapper } = await dashboard()
    await click(wrapper, 'stats-run')
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'stats', error: { code: 'invalid-input', message: 'a.csv: no column acc_x' } })
    await flushPromises()
    expect(notices(wrapper)).toEqual(['Statistics failed: a.csv: no column acc_x'])

    await click(wrapper, 'stats-run')
    // Running again: the earlier failure no longer describes what the view shows.
    expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(false)
    api.emit({ type: 'failed', jobId: 'job-2', workload: 'stats', error: { code: 'io', message: 'a.csv: permission denied' } })
    await flushPromises()
    expect(notices(wrapper)).toEqual(['Statistics failed: a.csv: permission denied'])

    await click(wrapper, 'stats-run')
    api.emit({ type: 'done', jobId: 'job-3', workload: 'stats', envelope: statsEnvelope(statsResult(statsFile('/data/a.csv', { acc_x: [1, 2] }, ['serial'], [2]))) })
    await flushPromises()
    expect(notices(wrapper)).toEqual([])
  })

  it('a job that cannot even start is reported, and cleared by the next start', async () => {
    const { api, wrapper } = await dashboard()
    const startJob = api.startJob.bind(api)
    api.startJob = () => Promise.reject(new ApiError('internal', 'the backend process exited (code 1)'))
    await click(wrapper, 'stats-run')
    expect(notices(wrapper)).toEqual(['Statistics failed: the backend process exited (code 1)'])
    api.startJob = startJob
    await click(wrapper, 'stats-run')
    expect(notices(wrapper)).toEqual([])
  })

  it('one view\'s new job leaves another view\'s error alone; each banner is dismissed on its own', async () => {
    const { api, wrapper } = await dashboard()
    await click(wrapper, 'run-bench')
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'device', error: { code: 'device-lost', message: 'the GPU was lost' } })
    await click(wrapper, 'stats-run')
    api.emit({ type: 'failed', jobId: 'job-2', workload: 'stats', error: { code: 'io', message: 'disk full' } })
    await flushPromises()
    expect(notices(wrapper)).toEqual(['Device benchmark failed: the GPU was lost', 'Statistics failed: disk full'])

    await click(wrapper, 'stats-run')
    expect(notices(wrapper)).toEqual(['Device benchmark failed: the GPU was lost'])
    api.emit({ type: 'failed', jobId: 'job-3', workload: 'stats', error: { code: 'io', message: 'disk still full' } })
    await flushPromises()
    expect(notices(wrapper)).toHaveLength(2)

    await wrapper.findAll('[data-testid="error-dismiss"]')[0].trigger('click')
    expect(notices(wrapper)).toEqual(['Statistics failed: disk still full'])
    await wrapper.get('[data-testid="error-dismiss"]').trigger('click')
    expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(false)
  })

  it('reopening a run in a view replaces that view\'s job error with the run', async () => {
    const history = new FakeApi()
    const run = history.keep(statsEnvelope(statsResult(statsFile('/data/a.csv', { acc_x: [1, 2] }, ['serial'], [2]))))
    const { api, wrapper } = await dashboard(history)
    await click(wrapper, 'stats-run')
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'stats', error: { code: 'io', message: 'disk full' } })
    await flushPromises()
    expect(notices(wrapper)).toEqual(['Statistics failed: disk full'])
    await click(wrapper, `history-open-${run.id}`)
    expect(notices(wrapper)).toEqual([])
    expect(wrapper.find('[data-testid="stats-reopened"]').exists()).toBe(true)
  })
})
