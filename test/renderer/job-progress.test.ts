// @vitest-environment happy-dom
// A job's time left around a GPU kernel compilation: none while the kernels compile, then one
// from the pace of the work done since.
import { mount } from '@vue/test-utils'
import { afterEach, describe, expect, it, vi } from 'vitest'
import JobProgress from '../../src/renderer/components/JobProgress.vue'

afterEach(() => {
  vi.useRealTimers()
  document.body.innerHTML = ''
})

describe('job progress around compiling kernels', () => {
  it('gives no time left while kernels compile, and afterwards estimates from the work done since', async () => {
    vi.useFakeTimers({ now: 0 })
    const w = mount(JobProgress, { props: { progress: { phase: 'starting', fraction: 0 }, cancelling: false, testid: 'p', cancelTestid: 'c' }, attachTo: document.body })
    const eta = () => w.find('[data-testid="job-eta"]')
    await vi.advanceTimersByTimeAsync(10_000)
    await w.setProps({ progress: { phase: 'simulating serial', fraction: 0.6 } })
    expect(eta().text()).toBe('about 0:07 left')

    await w.setProps({ progress: { phase: 'compiling kernels · gpu/fused', fraction: 0.6 } })
    expect(eta().exists()).toBe(false)
    expect(w.find('[data-testid="job-eta-unknown"]').exists()).toBe(true)
    await vi.advanceTimersByTimeAsync(27_000)
    expect(eta().exists()).toBe(false)

    // The first GPU slice restarts the pace; the next gives it: 0.1 in 2 s, 0.2 to go.
    await w.setProps({ progress: { phase: 'simulating gpu/fused', fraction: 0.7 } })
    expect(eta().exists()).toBe(false)
    await vi.advanceTimersByTimeAsync(2_000)
    await w.setProps({ progress: { phase: 'simulating gpu/fused', fraction: 0.8 } })
    expect(eta().text()).toBe('about 0:04 left')
    expect(w.find('[data-testid="job-eta-unknown"]').exists()).toBe(false)
  })
})
