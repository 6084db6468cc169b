// @vitest-environment happy-dom
// The landslide's animation says when it holds fewer frames than the charts have points.
import { mount } from '@vue/test-utils'
import { afterEach, describe, expect, it, vi } from 'vitest'
import ThicknessPlayer from '../../src/renderer/workloads/landslide/ThicknessPlayer.vue'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { FakeApi } from './fake-api'
import { landslide, run } from './landslide-runs'

afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

function player(sampling: LandslideResult['sampling']) {
  // happy-dom has no 2D canvas: painting a frame says so on the console.
  vi.spyOn(console, 'error').mockImplementation(() => {})
  const base = landslide(8, { serial: run('serial', 1, 'aa') }).results as LandslideResult
  const maps = [0, 4, 8].map((step) => ({ step, row0: 0, col0: 0, size: 1, block: 4, values: [0.5] }))
  const result: LandslideResult = { ...base, maps, ...(sampling && { sampling }) }
  return mount(ThicknessPlayer, { props: { result }, global: { provide: dashboardProvides(new FakeApi(), createErrorLog()) }, attachTo: document.body })
}

describe('ThicknessPlayer', () => {
  it('says the frames are thinned, and how, where the cap applied', () => {
    const w = player({ every: 2, maps_every: 4 })
    expect(w.get('[data-testid="landslide-frames-note"]').text()).toBe(
      '3 frames, one every 4 steps (and the last): the animation keeps at most 201; the charts have a point every 2 steps',
    )
  })

  it('says nothing where every sample is a frame', () => {
    expect(player({ every: 4, maps_every: 4 }).find('[data-testid="landslide-frames-note"]').exists()).toBe(false)
  })
})
