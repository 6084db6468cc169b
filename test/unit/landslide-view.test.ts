// @vitest-environment happy-dom
// The Landslide view with a stand-in backend: grids chosen by role make the `grids` parameter in
// the order the engine reads them; the schema's fields and defaults; "Try the example"; a finished
// job's runs table (md5 checks, GPU deviations), the thickness over the relief stepping through the
// maps, its SVG and GIF exports, and the charts; cancellation and skipped backends.
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import { defaultParams } from '../../src/shared/workloads/schema'
import { landslideWorkload, type LandslideParams } from '../../src/shared/workloads/landslide'
import type { LandslideResult, ThicknessMap } from '../../src/shared/workloads/landslide/types'
import LandslideView from '../../src/renderer/workloads/landslide/LandslideView.vue'
import { mapExtent } from '../../src/shared/workloads/landslide/thickness-frame'
import { envelopeOf } from '../renderer/envelope'
import { EXAMPLE_DIR, FakeApi } from '../renderer/fake-api'
import { drawn, mountWith } from '../renderer/mount'
import { readGif } from '../helpers/gif'

const files = [
  { path: '/data/tessina_dem.txt', name: 'tessina_dem.txt', bytes: 766_174 },
  { path: '/data/tessina_header.txt', name: 'tessina_header.txt', bytes: 81 },
  { path: '/data/tessina_source.txt', name: 'tessina_source.txt', bytes: 606_016 },
  { path: '/data/notes.md', name: 'notes.md', bytes: 10 },
]

function fakeApi(gpu = true): FakeApi {
  const api = new FakeApi()
  api.files = files
  api.device = gpu ? { available: true, features: [], limits: {} } : { available: false, reason: 'no Vulkan driver', features: [], limits: {} }
  return api
}

const select = (w: VueWrapper, id: string) => w.get<HTMLSelectElement>(`[data-testid="${id}"]`)

function map(step: number, filled: number): ThicknessMap {
  return { step, row0: 60, col0: 390, size: 4, block: 1, values: Array.from({ length: 16 }, (_, i) => (i < filled ? 0.5 + i / 10 : null)) }
}

const MD5 = '8ed78fa13180c12b4d8aeec7ce6a362a'
const result: LandslideResult = {
  grid: { rows: 610, cols: 496, cellsize: 10, xllcorner: 0, yllcorner: 0, nodata: 0, walls: 229_801, files: { header: files[1].path, dem: files[0].path, source: files[2].path } },
  steps: 4000,
  reference: { backend: 'serial', md5: MD5, mass_start: 5557, mass_end: 5556.999999999999 },
  runs: {
    serial: { backend: 'serial', precision: 'f64', ms: 14_000, ms_min: 13_900, ms_max: 14_100, ms_per_step: 3.5, md5: MD5, mass_end: 5557 },
    'workers-active': { backend: 'workers-active', precision: 'f64', ranks: 2, ms: 700, ms_min: 690, ms_max: 720, ms_per_step: 0.175, md5: 'ffffffffffffffffffffffffffffffff', mass_end: 5557 },
    'gpu/fused': {
      backend: 'gpu',
      variant: 'fused',
      precision: 'f32',
      ms: 50,
      ms_min: 48,
      ms_max: 60,
      ms_per_step: 0.0125,
      steps_per_submit: 500,
      passes_per_step: 1,
      mass_end: 5556.98,
      deviation: { max_abs: 0.0021, cells_over_1mm: 12, mass_error: -0.02 },
      roofline: { cells_per_step: 300_352, flop_per_step: 68.5e6, bytes_per_step: 3.9e6, intensity: 17.56, GFLOP_per_s: 5480, GB_per_s: 312 },
    },
  },
  series: { step: [0, 2000, 4000], mass: [5557, 5557, 5557], flooded: [900, 3000, 3100], max_thickness: [9, 5, 4], active: [1000, 3300, 3400] },
  maps: [map(0, 2), map(2000, 9), map(4000, 12)],
  hillshade: { row0: 60, col0: 390, size: 4, block: 1, azimuth: 315, altitude: 45, values: Array.from({ length: 16 }, (_, i) => (i === 15 ? null : 100 + i)) },
  skipped: [],
}

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  vi.useRealTimers()
  document.body.innerHTML = ''
})

describe('LandslideView form', () => {
  it('offers the grid files by role, holds the schema\'s defaults and waits for a DEM and a source', async () => {
    const { wrapper } = mountWith(LandslideView, fakeApi())
    await flushPromises()
    const options = select(wrapper, 'landslide-dem').findAll('option').map((o) => o.text())
    // Only the kinds the workload reads.
    expect(options).toEqual(['choose…', 'tessina_dem.txt (766 kB)', 'tessina_header.txt (81 B)', 'tessina_source.txt (606 kB)'])
    expect(wrapper.get('[data-testid="landslide-problem"]').text()).toBe('Choose the grids to read')
    expect(wrapper.get('[data-testid="landslide-run"]').attributes('disabled')).toBeDefined()
    expect(wrapper.get<HTMLInputElement>('[data-testid="landslide-steps"]').element.value).toBe('4000')
    expect(wrapper.get<HTMLInputElement>('[data-testid="landslide-backend-active"]').element.checked).toBe(true)
    expect(wrapper.get<HTMLInputElement>('[data-testid="landslide-variant-fused"]').element.checked).toBe(true)
    expect(wrapper.get<HTMLInputElement>('[data-testid="landslide-ranks"]').element.value).toBe('')
  })

  it('sends the header, the DEM and the source in that order with the fields\' values', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(LandslideView, api)
    await flushPromises()
    await select(wrapper, 'landslide-dem').setValue(files[0].path)
    // A DEM alone is not enough.
    expect(wrapper.get('[data-testid="landslide-run"]').attributes('disabled')).toBeDefined()
    await select(wrapper, 'landslide-source').setValue(files[2].path)
    await select(wrapper, 'landslide-header').setValue(files[1].path)
    await wrapper.get('[data-testid="landslide-steps"]').setValue('100')
    await wrapper.get('[data-testid="landslide-backend-serial"]').setValue(true)
    await wrapper.get('[data-testid="landslide-ranks"]').setValue('3')
    await wrapper.get('[data-testid="landslide-run"]').trigger('click')
    await flushPromises()
    expect(api.started).toHaveLength(1)
    const { grids, backends, ...rest } = api.started[0].params as LandslideParams
    expect(grids).toEqual([files[1].path, files[0].path, files[2].path])
    expect([...backends].sort()).toEqual(['active', 'serial'])
    const { grids: _g, backends: _b, ...defaults } = { grids: [], ...defaultParams(landslideWorkload.params) }
    expect(rest).toEqual({ ...defaults, steps: 100, ranks: 3 })
  })

  it('passes a tiling, RxC, as the command line\'s --tile does', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(LandslideView, api)
    await flushPromises()
    await select(wrapper, 'landslide-dem').setValue(files[0].path)
    await select(wrapper, 'landslide-source').setValue(files[2].path)
    expect(wrapper.get('[data-testid="landslide-tile"]').element.closest('label')?.getAttribute('title')).toContain('repeat the DEM and the source R times down and C across')
    await wrapper.get('[data-testid="landslide-tile"]').setValue('2x3')
    await wrapper.get('[data-testid="landslide-run"]').trigger('click')
    await flushPromises()
    expect((api.started[0].params as LandslideParams).tile).toBe('2x3')
  })

  it('refuses steps out of range in the validation\'s words; offers no GPU without an adapter', async () => {
    const { wrapper } = mountWith(LandslideView, fakeApi(false))
    await flushPromises()
    await select(wrapper, 'landslide-dem').setValue(files[0].path)
    await select(wrapper, 'landslide-source').setValue(files[2].path)
    await wrapper.get('[data-testid="landslide-steps"]').setValue('-1')
    expect(wrapper.get('[data-testid="landslide-problem"]').text()).toBe('Steps must be an integer in 0…1000000; got -1')
    const gpu = wrapper.get<HTMLInputElement>('[data-testid="landslide-backend-gpu"]')
    expect(gpu.element.disabled).toBe(true)
    expect(gpu.element.closest('label')?.getAttribute('title')).toBe('GPU unavailable: no Vulkan driver')
  })

  it('"Try the example" runs the example\'s grids, offers them in a group of their own and leaves the chosen grids as they were', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(LandslideView, api)
    await flushPromises()
    await select(wrapper, 'landslide-dem').setValue(files[0].path)
    await wrapper.get('[data-testid="landslide-example"]').trigger('click')
    await flushPromises()
    expect(api.examples).toEqual(['landslide'])
    const [dem, source] = landslideWorkload.example.files.map((f) => `${EXAMPLE_DIR}/landslide/${f}`)
    expect(api.started[0].params).toMatchObject({ ...landslideWorkload.example.params, grids: [dem, source] })
    // The selects are the user's: the example's grids are offered, not chosen.
    expect(select(wrapper, 'landslide-dem').element.value).toBe(files[0].path)
    expect(select(wrapper, 'landslide-source').element.value).toBe('')
    expect(select(wrapper, 'landslide-dem').findAll('optgroup').map((g) => g.attributes('label'))).toEqual(['example/', '/data/'])
    expect(select(wrapper, 'landslide-dem').get('optgroup[label="example/"]').findAll('option').map((o) => o.attributes('value'))).toEqual([dem, source])
  })

  it('groups grids by their folder under the data folder, so that files of one name differ', async () => {
    const api = fakeApi()
    api.files = [
      { path: '/srv/lab/a/tessina_header.txt', name: 'tessina_header.txt', bytes: 81, root: '/srv/lab', relative: 'a/tessina_header.txt' },
      { path: '/srv/lab/b/tessina_header.txt', name: 'tessina_header.txt', bytes: 82, root: '/srv/lab', relative: 'b/tessina_header.txt' },
      { path: '/srv/lab/b/run.bin', name: 'run.bin', bytes: 82, root: '/srv/lab', relative: 'b/run.bin' },
    ]
    const { wrapper } = mountWith(LandslideView, api)
    await flushPromises()
    const groups = select(wrapper, 'landslide-header').findAll('optgroup')
    expect(groups.map((g) => [g.attributes('label'), g.findAll('option').map((o) => o.attributes('value'))])).toEqual([
      ['lab/a/', ['/srv/lab/a/tessina_header.txt']],
      ['lab/b/', ['/srv/lab/b/tessina_header.txt']],
    ])
  })

  it('Open… under serve browses the data folders; the grids chosen there are offered, none chosen for a role', async () => {
    const api = fakeApi()
    api.folders.set(null, { path: null, folders: [{ path: '/srv/lab', name: 'lab' }], files: [], truncated: false })
    api.folders.set('/srv/lab', {
      path: '/srv/lab',
      folders: [],
      files: [
        { path: '/srv/lab/dem.asc', name: 'dem.asc', bytes: 10, root: '/srv/lab', relative: 'dem.asc' },
        { path: '/srv/lab/notes.md', name: 'notes.md', bytes: 10, root: '/srv/lab', relative: 'notes.md' },
      ],
      truncated: false,
    })
    const { wrapper } = mountWith(LandslideView, api)
    await flushPromises()
    await wrapper.get('[data-testid="landslide-open"]').trigger('click')
    await flushPromises()
    expect(api.browsed).toEqual([null, '/srv/lab'])
    expect(wrapper.get<HTMLInputElement>('[data-testid="landslide-chooser-file-lab/notes.md"]').element.disabled).toBe(true)
    await wrapper.get('[data-testid="landslide-chooser-file-lab/dem.asc"]').setValue(true)
    await wrapper.get('[data-testid="landslide-chooser-add"]').trigger('click')
    await flushPromises()
    expect(wrapper.find('[data-testid="landslide-chooser"]').exists()).toBe(false)
    expect(select(wrapper, 'landslide-dem').findAll('option').map((o) => o.attributes('value'))).toContain('/srv/lab/dem.asc')
    expect(select(wrapper, 'landslide-dem').element.value).toBe('')
  })
})

describe('LandslideView results', () => {
  async function finished(envelopeResult = result) {
    const api = fakeApi()
    const { wrapper } = mountWith(LandslideView, api)
    await flushPromises()
    await select(wrapper, 'landslide-dem').setValue(files[0].path)
    await select(wrapper, 'landslide-source').setValue(files[2].path)
    await wrapper.get('[data-testid="landslide-run"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'progress', jobId: 'job-1', workload: 'landslide', phase: 'simulating serial', fraction: 0.4 })
    await flushPromises()
    expect(wrapper.get('[data-testid="landslide-progress"]').text()).toContain('simulating serial')
    const envelope = envelopeOf('landslide', api.started[0].params, envelopeResult, {
      timings: Object.fromEntries(Object.entries(envelopeResult.runs).map(([k, r]) => [k, { median: r.ms, min: r.ms_min, max: r.ms_max, runs: 3 }])),
    })
    api.emit({ type: 'done', jobId: 'job-1', workload: 'landslide', envelope })
    await flushPromises()
    return { api, wrapper }
  }

  it('names the grid\'s CRS and gives the debris volume in m³ beside Σh; runs recorded before either say CRS unknown', async () => {
    const withUnits: LandslideResult = {
      ...result,
      grid: { ...result.grid, crs: { epsg: 32632, name: 'WGS 84 / UTM zone 32N' }, tile: { rows: 2, cols: 3 } },
      reference: { ...result.reference, volume_start: 555_700, volume_end: 555_699.9999999999 },
    }
    const view = (await finished(withUnits)).wrapper
    const summary = view.get('[data-testid="landslide-summary"]')
    expect(summary.get('[data-testid="landslide-crs"]').text()).toBe('EPSG:32632 (WGS 84 / UTM zone 32N)')
    expect(summary.text()).toContain('tiled 2 × 3: 610 × 496 cells')
    expect(summary.text()).toMatch(/volume, m³ 555,700 → /)
    expect(summary.get('[data-testid="landslide-volume-end"]').text()).toMatch(/^555,\d{3}/)
    // Its .asc comes with a .prj to download.
    expect(view.find('[data-testid="landslide-download-final.prj"]').exists()).toBe(true)
    const oldView = (await finished()).wrapper
    expect(oldView.find('[data-testid="landslide-download-final.prj"]').exists()).toBe(false)
    const old = oldView.get('[data-testid="landslide-summary"]')
    expect(old.get('[data-testid="landslide-crs"]').text()).toBe('unknown')
    expect(old.find('[data-testid="landslide-volume-end"]').exists()).toBe(false)
  })

  it('shows each run\'s time, speedup and md5 check or deviation, and the reference\'s md5 and mass', async () => {
    const { wrapper } = await finished()
    expect(wrapper.get('[data-testid="landslide-md5"]').text()).toBe(MD5)
    expect(wrapper.get('[data-testid="landslide-summary"]').text()).toContain('610 × 496 cells')
    // Σh is summed thickness in metres, not a mass.
    expect(wrapper.get('[data-testid="landslide-summary"]').text()).toMatch(/Σh, m [\d.,]+ →/)
    expect(wrapper.get('[data-testid="landslide-summary"]').text()).not.toMatch(/mass/i)
    expect(wrapper.get('[data-testid="landslide-runs-table"] caption').text()).toContain('over 3 runs')
    const serial = wrapper.get('[data-testid="landslide-run-serial"]')
    expect(serial.find('[data-testid="md5-same"]').exists()).toBe(true)
    const workers = wrapper.get('[data-testid="landslide-run-workers-active"]')
    expect(workers.text()).toContain('20×')
    expect(workers.get('[data-testid="md5-differs"]').text()).toContain('ffffffff')
    const gpu = wrapper.get('[data-testid="landslide-run-gpu-fused"]').findAll('td').map((td) => td.text())
    expect(gpu).toContain('280×')
    expect(gpu).toContain('0.0021')
    expect(gpu).toContain('12')
  })

  /** A 2D context that records the text drawn and hands out blank pixels: happy-dom draws nothing itself. */
  function recordCanvas() {
    const texts: string[] = []
    const ctx = {
      fillStyle: '',
      strokeStyle: '',
      lineWidth: 1,
      font: '',
      textAlign: 'left',
      textBaseline: 'alphabetic',
      fillRect: () => {},
      strokeRect: () => {},
      fillText: (t: string) => void texts.push(t),
      getImageData: (_x: number, _y: number, w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }),
    }
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(() => ctx as never)
    return texts
  }

  function captureDownloads() {
    const blobs: Blob[] = []
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => (blobs.push(blob as Blob), `blob:${blobs.length}`))
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {})
    const names: string[] = []
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download)
    })
    return { blobs, names }
  }

  it('draws the last map over the relief, steps through the maps with the slider and plays them', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const texts = recordCanvas()
    const { wrapper } = await finished()
    const frame = () => wrapper.get('[data-testid="landslide-frame"]')
    const title = () => texts.filter((t) => t.startsWith('Debris thickness')).at(-1)
    expect(title()).toBe('Debris thickness after 4,000 steps (of 4,000)')
    // The legend: the scale in metres (to 2 m, the deepest map cell being 1.6 m), the walls, the relief.
    expect(texts).toEqual(expect.arrayContaining(['h (m)', '0', '2', 'NODATA', 'clear: h ≤ 0.001 m']))
    expect(texts.some((t) => t.startsWith('over the hillshaded DEM'))).toBe(true)
    // The map says it is a window of the grid, and how many grid cells a map cell stands for.
    expect(wrapper.get('[data-testid="landslide-map-extent"]').text()).toBe('Rows 60–63 and columns 390–393 of the 610 × 496 grid, cropped to where the debris went; each map cell is one grid cell.')
    expect(mapExtent({ row0: 0, col0: 0, size: 102, block: 6 }, { rows: 610, cols: 496 })).toBe('The whole 610 × 496 grid; each map cell is the deepest of its 6 × 6 grid cells.')
    expect(mapExtent({ row0: 1200, col0: 600, size: 512, block: 6 }, { rows: 7320, cols: 6944 })).toBe(
      'Rows 1,200–4,271 and columns 600–3,671 of the 7,320 × 6,944 grid, cropped to where the debris went; each map cell is the deepest of its 6 × 6 grid cells.',
    )
    expect(frame().attributes('data-step')).toBe('4000')
    expect(wrapper.get('[data-testid="landslide-step-label"]').text()).toBe('step 4,000 of 4,000')

    await wrapper.get('[data-testid="landslide-step"]').setValue('0')
    await flushPromises()
    expect(wrapper.get('[data-testid="landslide-step-label"]').text()).toBe('step 0 of 4,000')
    expect(title()).toBe('Debris thickness after 0 steps (of 4,000)')
    expect(frame().attributes('aria-label')).toBe('Debris thickness after 0 steps (of 4,000)')

    await wrapper.get('[data-testid="landslide-play"]').trigger('click')
    expect(wrapper.get('[data-testid="landslide-play"]').text()).toBe('Pause')
    await vi.advanceTimersByTimeAsync(450)
    expect(wrapper.get('[data-testid="landslide-step-label"]').text()).toBe('step 2,000 of 4,000')
    expect(title()).toBe('Debris thickness after 2,000 steps (of 4,000)')
    await vi.advanceTimersByTimeAsync(900)
    // The animation stops at the last map.
    expect(wrapper.get('[data-testid="landslide-step-label"]').text()).toBe('step 4,000 of 4,000')
    expect(wrapper.get('[data-testid="landslide-play"]').text()).toBe('Play')
  })

  it('exports the shown frame as SVG and every map as a GIF, as downloads', async () => {
    recordCanvas()
    const { wrapper } = await finished()
    const { blobs, names } = captureDownloads()
    await wrapper.get('[data-testid="landslide-step"]').setValue('1')
    await wrapper.get('[data-testid="landslide-export-svg"]').trigger('click')
    await vi.waitFor(() => expect(names).toEqual(['landslide-thickness-2000.svg']))
    expect(blobs[0].type).toBe('image/svg+xml')
    const svg = await blobs[0].text()
    expect(svg).toContain('>Debris thickness after 2,000 steps (of 4,000)</text>')
    expect(svg).not.toContain('<image')

    await wrapper.get('[data-testid="landslide-export-gif"]').trigger('click')
    await vi.waitFor(() => expect(names).toHaveLength(2))
    expect(names[1]).toBe('landslide-thickness.gif')
    expect(blobs[1].type).toBe('image/gif')
    const gif = readGif(new Uint8Array(await blobs[1].arrayBuffer()))
    expect(gif.frames).toHaveLength(result.maps.length)
    expect(wrapper.get('[data-testid="landslide-export-gif"]').attributes('disabled')).toBeUndefined()
  })

  it('draws the series and the time and speedup bars', async () => {
    const { wrapper } = await finished()
    for (const name of ['mass', 'area', 'depth', 'time', 'speedup'])
      expect(wrapper.find(`[data-testid="landslide-chart-${name}"]`).exists(), name).toBe(true)
    const area = drawn(wrapper.get('[data-testid="landslide-chart-area"]').findComponent(Chart))
    expect(area.data.datasets.map((d) => d.label)).toEqual(['flooded (h > 1 mm)', 'active (debris or bordering it)'])
  })

  it('places each GPU kernel on a roofline, labelled, on log axes', async () => {
    const { wrapper } = await finished()
    const roofline = drawn(wrapper.get('[data-testid="landslide-chart-roofline"]').findComponent(Chart))
    expect(roofline.data.datasets.map((d) => d.label)).toEqual(['gpu/fused (f32)'])
    expect(roofline.data.datasets[0].data).toEqual([{ x: 17.56, y: 5480 }])
    expect([roofline.options.scales.x.type, roofline.options.scales.y.type]).toEqual(['logarithmic', 'logarithmic'])
  })

  it('says which backends were skipped', async () => {
    const { wrapper } = await finished({ ...result, skipped: [{ backend: 'gpu', reason: 'no Vulkan driver' }] })
    expect(wrapper.get('[data-testid="landslide-skipped"]').text()).toBe('Skipped gpu: no Vulkan driver')
  })

  it('cancels the job, and shows the runs a cancelled job had finished', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(LandslideView, api)
    await flushPromises()
    await select(wrapper, 'landslide-dem').setValue(files[0].path)
    await select(wrapper, 'landslide-source').setValue(files[2].path)
    await wrapper.get('[data-testid="landslide-run"]').trigger('click')
    await flushPromises()
    await wrapper.get('[data-testid="landslide-cancel"]').trigger('click')
    await flushPromises()
    expect(api.cancelled).toEqual(['job-1'])
    const partial = { ...envelopeOf('landslide', api.started[0].params, { ...result, runs: { serial: result.runs.serial } }), partial: true }
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'landslide', error: { code: 'cancelled', message: 'cancelled' }, partial })
    await flushPromises()
    expect(wrapper.get('[data-testid="landslide-partial"]').text()).toContain('Cancelled')
    expect(wrapper.findAll('[data-testid="landslide-runs-table"] tbody tr')).toHaveLength(1)
  })
})
