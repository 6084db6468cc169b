// @vitest-environment happy-dom
// The comparison of runs as the dashboard draws it: figures per unit of work where the runs did
// different amounts of it, the runs' checks beside their times, differing checks marked; and two
// landslide runs' final grids, B − A, or why they are not compared.
import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, describe, expect, it, vi } from 'vitest'
import RunComparison from '../../src/renderer/components/RunComparison.vue'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import type { GridComparison } from '../../src/shared/grid-difference'
import { FakeApi } from './fake-api'
import { landslide, run } from './landslide-runs'

afterEach(() => {
  vi.restoreAllMocks()
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

describe('RunComparison of two landslide runs\' final grids', () => {
  const map = { row0: 0, col0: 0, size: 2, block: 1, values: [0.5, -0.25, 0, null], wallsDiffer: [] }
  const stats = {
    sum: [10, 12.5] as [number, number],
    volume: [1000, 1250] as [number, number],
    delta: { sum: 2.5, volume: 250 },
    compared: 3,
    differing: 2,
    over: 2,
    threshold: 0.001,
    maxAbs: 0.5,
    at: { row: 0, col: 0, delta: 0.5 },
    walls: { both: 1, onlyA: 0, onlyB: 0 },
  }

  async function compareGrids(answer: GridComparison, count = 2) {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const api = new FakeApi()
    api.gridComparison = answer
    // Kept newest first, as the History lists them: ids[0] is the latest run.
    const ids = Array.from({ length: count }, (_, i) => api.keep({ ...landslide(100 * (i + 1), { serial: run('serial', 40, 'aa') }), createdAt: `2025-01-0${i + 1}T10:00:00.000Z` }).id).reverse()
    const wrapper = mount(RunComparison, { props: { ids }, global: { provide: dashboardProvides(api, createErrorLog()) }, attachTo: document.body })
    await flushPromises()
    return { wrapper, api, ids }
  }

  it('sets the later run B against the earlier A, Δvolume and the cells that differ beside the map; swapped on request', async () => {
    const { wrapper, api, ids } = await compareGrids({ outcome: 'compared', grid: { rows: 2, cols: 2, cellsize: 10, xllcorner: 0, yllcorner: 0 }, stats, map })
    // ids: newest first, so A (earlier) is ids[1].
    expect(api.comparedGrids).toEqual([[ids[1], ids[0]]])
    expect(wrapper.get('[data-testid="grid-difference-volume"]').text()).toContain('+250 m³')
    expect(wrapper.get('[data-testid="grid-difference-volume"]').text()).toContain('A 1,000 m³ · B 1,250 m³')
    expect(wrapper.get('[data-testid="grid-difference-mass"]').text()).toContain('+2.5 m')
    expect(wrapper.get('[data-testid="grid-difference-max"]').text()).toContain('0.5 m')
    expect(wrapper.get('[data-testid="grid-difference-cells"]').text()).toContain('2 of 3')
    expect(wrapper.find('[data-testid="difference-frame"]').exists()).toBe(true)
    await wrapper.get('[data-testid="grid-difference-swap"]').trigger('click')
    await flushPromises()
    expect(api.comparedGrids).toEqual([
      [ids[1], ids[0]],
      [ids[0], ids[1]],
    ])
  })

  it('says why instead of drawing: grids that are not one grid, or a run that kept none, by name', async () => {
    const incomparable = await compareGrids({ outcome: 'incomparable', reasons: ['The cells differ in size: A\'s are 10 m, B\'s 5 m.'] })
    expect(incomparable.wrapper.get('[data-testid="grid-difference-incomparable"]').text()).toContain('The cells differ in size: A\'s are 10 m, B\'s 5 m.')
    expect(incomparable.wrapper.find('[data-testid="difference-frame"]').exists()).toBe(false)
    document.body.innerHTML = ''
    const missing = await compareGrids({ outcome: 'missing', runs: [{ run: 'B', id: 'x', reason: 'its final grid is no longer kept' }] })
    const b = missing.wrapper.get('[data-testid="grid-difference-b"]').text()
    expect(missing.wrapper.get('[data-testid="grid-difference-missing-B"]').text()).toBe(`run B (${b}): its final grid is no longer kept`)
    expect(missing.wrapper.find('[data-testid="difference-frame"]').exists()).toBe(false)
  })

  it('compares grids between two runs only', async () => {
    const { wrapper, api } = await compareGrids({ outcome: 'missing', runs: [] }, 3)
    expect(wrapper.find('[data-testid="grid-difference-pick"]').exists()).toBe(true)
    expect(api.comparedGrids).toEqual([])
  })
})
