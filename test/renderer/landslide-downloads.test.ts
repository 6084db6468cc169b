// @vitest-environment happy-dom
// The landslide's results offer the final grid as .asc, .tif and .npy and the final frame, saying
// its resolution: files the backend makes from the run (the page never holds the grid), from the
// grid the run kept when it kept one (exportRunFile, streamed), else from its results.
import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import LandslideResults from '../../src/renderer/workloads/landslide/LandslideResults.vue'
import { FakeApi } from './fake-api'

const result: LandslideResult = {
  grid: { rows: 610, cols: 496, cellsize: 10, xllcorner: 0, yllcorner: 0, nodata: 0, walls: 3, files: { header: '/d/h.txt', dem: '/d/dem.txt', source: '/d/src.txt' } },
  steps: 4000,
  reference: { backend: 'serial', md5: 'abc', mass_start: 1, mass_end: 1 },
  runs: { serial: { backend: 'serial', precision: 'f64', ms: 10, ms_min: 10, ms_max: 10, ms_per_step: 0.0025, md5: 'abc', mass_end: 1 } },
  series: { step: [0, 4000], mass: [1, 1], flooded: [1, 2], max_thickness: [1, 1], active: [1, 2] },
  maps: [{ step: 4000, row0: 0, col0: 0, size: 64, block: 10, values: [] }],
  skipped: [],
}
const FILES = ['final.asc', 'final.tif', 'final.npy', 'thickness-full.png', 'thickness-full.svg']

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('the landslide\'s final grid downloads', () => {
  it('ask the backend for the final grid as .asc, GeoTIFF and .npy and the full-resolution frame', async () => {
    const api = new FakeApi()
    const view = mount(LandslideResults, { props: { result, timings: {} }, global: { provide: dashboardProvides(api, createErrorLog()) }, attachTo: document.body })
    await flushPromises()
    // 64 map cells of 10 × 10 grid cells: the frame at a grid cell a map cell would be 640 a side.
    expect(view.get('[data-testid="landslide-frame-resolution"]').text()).toBe('Final frame (640 × 640 map cells, a grid cell each):')
    for (const file of FILES) {
      await view.get(`[data-testid="landslide-download-${file}"]`).trigger('click')
      await flushPromises()
    }
    expect(api.resultFileExports.map((r) => [r.workload, r.file, r.fileName])).toEqual([
      ['landslide', 'final.asc', 'landslide-final-4000.asc'],
      ['landslide', 'final.tif', 'landslide-final-4000.tif'],
      ['landslide', 'final.npy', 'landslide-final-4000.npy'],
      ['landslide', 'thickness-full.png', 'landslide-thickness-full.png'],
      ['landslide', 'thickness-full.svg', 'landslide-thickness-full.svg'],
    ])
    expect(api.resultFileExports[0].results).toEqual(result)
  })

  it('a run that kept its grid downloads them by its id, and a frame past 1024 cells a side says its blocks', async () => {
    const api = new FakeApi()
    const big = { ...result, grid: { ...result.grid, rows: 7320, cols: 6944 }, maps: [{ step: 4000, row0: 0, col0: 0, size: 64, block: 115, values: [] }] }
    const kept = { run: '20260101T000000000Z-landslide-0000abcd', files: ['final.npy', 'final-walls.bits', 'final-frame.f64', 'final-grid.json'] }
    const view = mount(LandslideResults, { props: { result: big, timings: {}, kept }, global: { provide: dashboardProvides(api, createErrorLog()) }, attachTo: document.body })
    await flushPromises()
    expect(view.get('[data-testid="landslide-frame-resolution"]').text()).toBe('Final frame (920 × 920 map cells, each the deepest of 8 × 8 grid cells (at most 1024 a side)):')
    for (const file of FILES) {
      await view.get(`[data-testid="landslide-download-${file}"]`).trigger('click')
      await flushPromises()
    }
    expect(api.resultFileExports).toEqual([])
    expect(api.runFileExports.map((r) => [r.run, r.file, r.fileName])).toEqual(FILES.map((f) => [kept.run, f, f.startsWith('final.') ? `landslide-${f.replace('.', '-4000.')}` : `landslide-${f}`]))
  })
})
