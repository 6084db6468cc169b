// @vitest-environment happy-dom
// The landslide's results offer the final grid as .asc and .npy and the final frame at full
// resolution: files the backend makes from the run (the page never holds the grid).
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
  maps: [],
  skipped: [],
}

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
    for (const file of ['final.asc', 'final.tif', 'final.npy', 'thickness-full.png', 'thickness-full.svg']) {
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
})
