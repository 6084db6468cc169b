// @vitest-environment happy-dom
import { flushPromises } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../src/renderer/App.vue'
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

  it('lists running jobs of every view and drops them when they end', async () => {
    const api = new FakeApi()
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    api.emit({ type: 'progress', jobId: 'j1', kind: 'stats', phase: 'parsing', fraction: 0.3 })
    await flushPromises()
    const jobs = wrapper.get('[data-testid="active-jobs"]')
    expect(jobs.text()).toContain('Statistics')
    expect(jobs.text()).toContain('30%')
    api.emit({ type: 'done', jobId: 'j1', kind: 'stats', result: { files: [] } })
    await flushPromises()
    expect(jobs.text()).toContain('None running')
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
