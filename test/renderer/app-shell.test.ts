// @vitest-environment happy-dom
import { flushPromises } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../src/renderer/App.vue'
import ActiveJobs from '../../src/renderer/components/ActiveJobs.vue'
import { workload } from '../../src/shared/workloads'
import { statsEnvelope, statsResult } from './stats-fixture'
import { FakeApi } from './fake-api'
import { mountWith } from './mount'

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
  window.location.hash = ''
})
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('App shell', () => {
  it('starts on Device and switches views from the navigation, keeping the choice in the hash', async () => {
    const api = new FakeApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    const visible = (id: string) => (wrapper.get(`[data-testid="${id}"]`).element as HTMLElement).closest<HTMLElement>('.main > *')!.style.display !== 'none'
    expect(visible('run-bench')).toBe(true)
    expect(visible('stats-run')).toBe(false)
    await wrapper.get('[data-testid="nav-stats"]').trigger('click')
    expect(visible('stats-run')).toBe(true)
    expect(visible('run-bench')).toBe(false)
    expect(window.location.hash).toBe('#stats')
    expect(wrapper.get('[data-testid="nav-stats"]').attributes('aria-current')).toBe('page')
  })

  it('names the views by their definitions\' titles, with the summary as hint', async () => {
    const { wrapper } = mountWith(App, new FakeApi())
    await flushPromises()
    for (const id of ['device', 'stats'] as const) {
      const link = wrapper.get(`[data-testid="nav-${id}"]`)
      expect(link.text()).toBe(workload(id).title)
      expect(link.attributes('title')).toBe(workload(id).summary)
    }
    expect(wrapper.get('[data-testid="nav-stats"]').text()).toBe('Statistics')
  })

  it('lists running jobs of every view and drops them when they end', async () => {
    const api = new FakeApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    api.emit({ type: 'progress', jobId: 'j1', workload: 'stats', phase: 'loading acc.csv', fraction: 0.3 })
    await flushPromises()
    const jobs = wrapper.get('[data-testid="active-jobs"]')
    expect(jobs.text()).toContain('Statistics')
    expect(jobs.text()).toContain('30%')
    expect(jobs.text()).toContain('loading acc.csv')
    api.emit({ type: 'done', jobId: 'j1', workload: 'stats', envelope: statsEnvelope(statsResult()) })
    await flushPromises()
    expect(jobs.text()).toContain('None running')
  })

  it('labels each running job with its workload\'s title, one line per job', async () => {
    const api = new FakeApi()
    const { wrapper } = mountWith(ActiveJobs, api)
    api.emit({ type: 'progress', jobId: 'j1', workload: 'device', phase: 'read bandwidth', fraction: 0.5 })
    api.emit({ type: 'progress', jobId: 'j2', workload: 'stats', phase: 'computing', fraction: 0.1 })
    // A later event of the same job updates its line instead of adding one.
    api.emit({ type: 'progress', jobId: 'j2', workload: 'stats', phase: 'computing serial', fraction: 0.6 })
    await flushPromises()
    const jobs = wrapper.findAll('.job')
    expect(jobs.map((j) => j.get('.label span').text())).toEqual([workload('device').title, workload('stats').title])
    expect(jobs.map((j) => j.get('.label span').text())).toEqual(['Device', 'Statistics'])
    expect(jobs[1].get('.phase').text()).toBe('computing serial')
    expect(jobs[1].get('.pct').text()).toBe('60%')
    expect(jobs[1].attributes('title')).toBe('Statistics: computing serial')
    // A failed (or cancelled) job leaves the list too.
    api.emit({ type: 'failed', jobId: 'j1', workload: 'device', error: { code: 'cancelled', message: 'cancelled' } })
    await flushPromises()
    expect(wrapper.findAll('.job').map((j) => j.get('.label span').text())).toEqual(['Statistics'])
  })

  it('shows errors in the banner, once per cause, and dismisses them', async () => {
    const api = new FakeApi()
    const failure = { code: 'io', message: 'The connection to the Paralab server closed (code 1006).' }
    api.deviceInfo = () => Promise.reject(failure)
    api.listDataFiles = () => Promise.reject(failure)
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    const banner = wrapper.get('[data-testid="error-banner"]')
    expect(banner.findAll('.notice')).toHaveLength(1)
    expect(banner.text()).toContain('The connection to the Paralab server closed (code 1006).')
    await banner.get('button').trigger('click')
    expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(false)
  })
})
