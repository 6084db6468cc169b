// @vitest-environment happy-dom
// The comparison of runs as the dashboard draws it: figures per unit of work where the runs did
// different amounts of it, the runs' checks beside their times, differing checks marked.
import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, describe, expect, it } from 'vitest'
import RunComparison from '../../src/renderer/components/RunComparison.vue'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import { FakeApi } from './fake-api'
import { landslide, run } from './landslide-runs'

afterEach(() => {
  document.body.innerHTML = ''
})

async function compare(...envelopes: ReturnType<typeof landslide>[]) {
  const api = new FakeApi()
  const ids = envelopes.map((e, i) => api.keep({ ...e, createdAt: `2025-01-0${i + 1}T10:00:00.000Z` }).id)
  const wrapper = mount(RunComparison, { props: { ids }, global: { provide: dashboardProvides(api, createErrorLog()) }, attachTo: document.body })
  await flushPromises()
  return wrapper
}

describe('RunComparison', () => {
  it('sets a 100-step run against a 4000-step one per step, the faster per step in bold', async () => {
    const w = await compare(landslide(100, { serial: run('serial', 40, 'aa') }), landslide(4000, { serial: run('serial', 1200, 'bb') }))
    expect(w.find('[data-testid="comparison-per-unit-note"]').exists()).toBe(true)
    const row = w.get('[data-testid="comparison-row-dem.asc, source.asc: serial"]')
    expect(row.get('[data-testid="comparison-unit"]').text()).toBe('µs / step')
    const figures = row.findAll('td.figure')
    expect(figures.map((td) => td.text())).toEqual(['400', '400', '400', '300', '300', '300'])
    expect(figures.map((td) => td.classes('best'))).toEqual([false, false, false, true, false, false])
    // The md5 and mass differ between the runs: marked.
    const checks = row.findAll('[data-testid="comparison-checks"]')
    expect(checks.map((c) => c.findAll('.differs').map((d) => d.text()))).toEqual([
      ['md5 aa', 'mass 40'],
      ['md5 bb', 'mass 1200'],
    ])
  })

  it('says so where runs cannot be compared, and ranks none of them', async () => {
    const w = await compare(landslide(0, { serial: run('serial', 1, 'aa') }), landslide(100, { serial: run('serial', 40, 'aa') }))
    const row = w.get('[data-testid="comparison-row-dem.asc, source.asc: serial"]')
    expect(row.get('[data-testid="comparison-incomparable"]').text()).toBe('ms, not comparable: one of them did no work (0 steps)')
    expect(row.findAll('td.best')).toHaveLength(0)
  })
})
