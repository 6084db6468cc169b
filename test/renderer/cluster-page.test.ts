// @vitest-environment happy-dom
// The Cluster page: in the navigation only where the backend has Slurm; the user's runs with their
// tasks' states and progress bars, kept fresh only while shown; cancel; a run's kept results opened
// in its workload's view.
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ClusterRun } from '../../src/shared/cluster'
import App from '../../src/renderer/App.vue'
import { FakeApi } from './fake-api'
import { mountWith } from './mount'
import { statsEnvelope, statsFile, statsResult } from './stats-fixture'

function run(over: Partial<ClusterRun> = {}): ClusterRun {
  return {
    job_id: '41',
    merge_job_id: '42',
    workload: 'stats',
    dir: '/home/user/paralab/cluster-runs/20261126T101500-stats-a1b2c3',
    state: 'RUNNING',
    merge_state: 'PENDING',
    elapsed_s: 75,
    nodes: ['n1', 'n2'],
    tasks: [
      { index: 0, job_id: '41_0', state: 'COMPLETED', exit_code: 0, node: 'n1', elapsed_s: 3, progress: { phase: 'done', fraction: 1 } },
      { index: 1, job_id: '41_1', state: 'RUNNING', exit_code: null, node: 'n2', elapsed_s: 75, progress: { phase: 'serial f64 · slow.csv · repeat 3 of 300', fraction: 0.25 } },
      { index: 2, job_id: '41_2', state: 'PENDING', exit_code: null, node: null, elapsed_s: 0, progress: null },
    ],
    runs: [],
    ...over,
  }
}

const bar = (w: VueWrapper, task: string) => w.get(`[data-testid="cluster-progress-${task}"]`).attributes('aria-valuenow')
const shown = (w: VueWrapper, id: string) => (w.get(`[data-testid="${id}"]`).element as HTMLElement).closest<HTMLElement>('.main > *')!.style.display !== 'none'

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
  window.location.hash = ''
})
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('Cluster page', () => {
  it('is in the navigation only where the backend has Slurm', async () => {
    const api = new FakeApi()
    const without = mountWith(App, api).wrapper
    await flushPromises()
    expect(without.find('[data-testid="nav-cluster"]').exists()).toBe(false)
    expect(without.find('[data-testid="cluster-page"]').exists()).toBe(false)
    without.unmount()
    const withSlurm = new FakeApi()
    withSlurm.cluster = { available: true }
    const { wrapper } = mountWith(App, withSlurm)
    await flushPromises()
    const nav = wrapper.get('[data-testid="nav-cluster"]')
    expect(nav.text()).toBe('Cluster')
    await nav.trigger('click')
    expect(window.location.hash).toBe('#cluster')
    expect(shown(wrapper, 'cluster-page')).toBe(true)
    expect(shown(wrapper, 'stats-run')).toBe(false)
  })

  it('lists the runs with their tasks\' states and progress, asked again only while shown', async () => {
    const api = new FakeApi()
    api.cluster = { available: true }
    api.clusterRuns = [run()]
    const asked = vi.spyOn(api, 'listClusterJobs')
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    // Not shown: asked once, for the sidebar's count of runs on the cluster (then every 10 s), not every second.
    expect(asked).toHaveBeenCalledTimes(1)
    await wrapper.get('[data-testid="nav-cluster"]').trigger('click')
    await flushPromises()
    const row = wrapper.get('[data-testid="cluster-run-41"]')
    expect(row.text()).toContain('Statistics')
    expect(row.text()).toContain('job 41, merge 42')
    expect(row.text()).toContain('0:01:15 on n1, n2')
    expect(wrapper.get('[data-testid="cluster-state-41"]').text()).toBe('RUNNING')
    expect([bar(wrapper, '41_0'), bar(wrapper, '41_1'), bar(wrapper, '41_2')]).toEqual(['100', '25', '0'])
    expect(wrapper.get('[data-testid="cluster-task-41_1"]').text()).toContain('repeat 3 of 300')
    expect(wrapper.find('[data-testid="cluster-open-41"]').exists()).toBe(false)

    // The next answer moves the bar.
    api.clusterRuns = [run({ tasks: run().tasks.map((t) => (t.index === 1 ? { ...t, progress: { phase: 'serial', fraction: 0.6 } } : t)) })]
    await vi.waitFor(() => expect(bar(wrapper, '41_1')).toBe('60'), { timeout: 3000 })
    // Elsewhere, the page is not kept fresh.
    await wrapper.get('[data-testid="nav-stats"]').trigger('click')
    await new Promise((r) => setTimeout(r, 1200))
    const calls = asked.mock.calls.length
    await new Promise((r) => setTimeout(r, 1200))
    expect(asked.mock.calls.length).toBe(calls)
  })

  it('cancels a run or one of its tasks while they run, and says MERGING while its merge runs', async () => {
    const api = new FakeApi()
    api.cluster = { available: true }
    api.clusterRuns = [run()]
    window.location.hash = '#cluster'
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    // One task alone, or the whole run; a task that has ended has nothing to cancel.
    expect(wrapper.find('[data-testid="cluster-cancel-41_0"]').exists()).toBe(false)
    // Cancel asks first: a misclick is taken back with No, and nothing is cancelled.
    await wrapper.get('[data-testid="cluster-cancel-41"]').trigger('click')
    expect(wrapper.get('[data-testid="cluster-confirm-41"]').text()).toContain('Cancel job 41, every task?')
    await wrapper.get('[data-testid="cluster-confirm-no-41"]').trigger('click')
    await flushPromises()
    expect(api.clusterCancelled).toEqual([])
    expect(wrapper.find('[data-testid="cluster-confirm-41"]').exists()).toBe(false)
    await wrapper.get('[data-testid="cluster-cancel-41_1"]').trigger('click')
    await wrapper.get('[data-testid="cluster-confirm-yes-41_1"]').trigger('click')
    await flushPromises()
    await wrapper.get('[data-testid="cluster-cancel-41"]').trigger('click')
    await wrapper.get('[data-testid="cluster-confirm-yes-41"]').trigger('click')
    await flushPromises()
    expect(api.clusterCancelled).toEqual(['41_1', '41'])
    api.clusterRuns = [run({ state: 'CANCELLED', merge_state: 'RUNNING' })]
    await vi.waitFor(() => expect(wrapper.get('[data-testid="cluster-state-41"]').text()).toBe('MERGING'), { timeout: 3000 })
    expect(wrapper.find('[data-testid="cluster-cancel-41"]').exists()).toBe(false)
  })

  it('opens a finished run\'s kept results in its workload\'s view, and says why a merge left none', async () => {
    const api = new FakeApi()
    api.cluster = { available: true }
    const envelope = { ...statsEnvelope(statsResult(statsFile('/data/a.csv', { acc_x: [1, 2, 3] }, ['serial'], [3]))), cluster: { job_id: '41', nodes: ['n1'], tasks: [{ index: 0, state: 'COMPLETED' }], failed: [] } }
    const kept = api.keep(envelope)
    api.clusterRuns = [
      run({ state: 'COMPLETED', merge_state: 'COMPLETED', runs: [kept.id] }),
      run({ job_id: '39', merge_job_id: '40', state: 'FAILED', merge_state: 'FAILED', tasks: [], runs: [], error: 'no task of the job left a result (task 0 FAILED exit 1: "oops" is not a number)' }),
    ]
    window.location.hash = '#cluster'
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    expect(wrapper.get('[data-testid="cluster-state-41"]').text()).toBe('COMPLETED')
    expect(wrapper.get('[data-testid="cluster-error-39"]').text()).toContain('"oops" is not a number')
    expect(wrapper.find('[data-testid="cluster-open-39"]').exists()).toBe(false)
    // The Device view reads each workload's newest run (which backend was fastest): then the one clicked.
    const before = api.openedRuns.length
    await wrapper.get('[data-testid="cluster-open-41"]').trigger('click')
    await flushPromises()
    expect(api.openedRuns.slice(before)).toEqual([kept.id])
    expect(window.location.hash).toBe('#stats')
    expect(shown(wrapper, 'stats-results')).toBe(true)
    expect(wrapper.get('[data-testid="stats-cluster-run"]').text()).toMatch(/^Ran on the cluster: job 41, 1 task on n1/)
  })

  it('shows a failed task as failed, with its error; a merge that kept results though a task failed says so; the sidebar counts cluster runs', async () => {
    const api = new FakeApi()
    api.cluster = { available: true }
    const failed = { index: 1, job_id: '41_1', state: 'FAILED', exit_code: 1, node: 'n2', elapsed_s: 9, progress: { phase: 'ended with exit 1 in serial f64 · b.csv', fraction: 0.4 }, error: 'b.csv:3:2: column "acc_y": "oops" is not a number' }
    const kept = api.keep({ ...statsEnvelope(statsResult(statsFile('/data/a.csv', { acc_x: [1, 2, 3] }, ['serial'], [3]))) })
    api.clusterRuns = [
      run({ state: 'FAILED', merge_state: 'FAILED', runs: [kept.id], tasks: [run().tasks[0], failed] }),
      run({ job_id: '51', merge_job_id: '52', dir: '/home/user/paralab/cluster-runs/b' }),
    ]
    window.location.hash = '#cluster'
    const { wrapper } = mountWith(App, api)
    await flushPromises()
    expect(wrapper.get('[data-testid="cluster-state-41"]').text()).toBe('MERGED, 1 TASK FAILED')
    const row = wrapper.get('[data-testid="cluster-task-41_1"]')
    expect(bar(wrapper, '41_1')).toBe('40')
    expect(row.get('.bar').classes()).toContain('failed')
    expect(row.get('.pct').text()).toBe('FAILED')
    expect(wrapper.get('[data-testid="cluster-task-error-41_1"]').text()).toContain('"oops" is not a number')
    // The sidebar: the running cluster run, not "None running".
    await vi.waitFor(() => expect(wrapper.find('[data-testid="active-cluster-51"]').exists()).toBe(true))
    expect(wrapper.get('[data-testid="active-jobs"]').text()).not.toContain('None running')
    expect(wrapper.find('[data-testid="active-cluster-41"]').exists()).toBe(false)
  })

  it('says Slurm cannot be reached, not squeue\'s raw words', async () => {
    const api = new FakeApi()
    api.cluster = { available: true }
    api.listClusterJobs = async () => {
      // As the server sends it (src/main/cluster/slurm-command.ts) on a machine with Slurm's client and no controller.
      throw {
        code: 'io',
        message:
          'squeue failed: squeue: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host; squeue: error: fetch_config: DNS SRV lookup failed; squeue: error: _establish_config_source: failed to fetch config; squeue: fatal: Could not establish a configuration source',
      }
    }
    window.location.hash = '#cluster'
    const { wrapper, errors } = mountWith(App, api)
    await flushPromises()
    expect(errors.notices.value.map((n) => n.message)).toEqual([
      "Could not list the cluster runs: Slurm's controller cannot be reached from this machine (none is configured, and none was found by DNS), so the runs on the cluster cannot be listed",
    ])
    void wrapper
  })
})
