// @vitest-environment happy-dom
// "Run on the cluster" in a workload's form: offered only where the backend has Slurm, its fields
// checked as the CLI checks its flags (named by their labels), Run submitting the form's run with
// them instead of starting a local job, and the run's merged results shown in the view when the
// backend announces them.
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { clusterEventId } from '../../src/shared/cluster'
import StatsView from '../../src/renderer/workloads/stats/StatsView.vue'
import PathsView from '../../src/renderer/workloads/paths/PathsView.vue'
import { FakeApi } from './fake-api'
import { mountWith } from './mount'
import { statsEnvelope, statsFile, statsResult } from './stats-fixture'

function fakeApi(available: boolean): FakeApi {
  const api = new FakeApi()
  api.files = [{ path: '/data/a.csv', name: 'a.csv', bytes: 640 }, { path: '/data/b.csv', name: 'b.csv', bytes: 640 }]
  api.cluster = available ? { available: true } : { available: false, reason: 'sbatch missing' }
  return api
}

const field = (w: VueWrapper, name: string) => w.get<HTMLInputElement>(`[data-testid="stats-cluster-${name}"]`)
const run = (w: VueWrapper) => w.get('[data-testid="stats-run"]')

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

async function statsForm(available = true) {
  const api = fakeApi(available)
  const mounted = mountWith(StatsView, api)
  await flushPromises()
  await mounted.wrapper.get('[data-testid="stats-file-a.csv"]').setValue(true)
  await mounted.wrapper.get('[data-testid="stats-file-b.csv"]').setValue(true)
  return { api, ...mounted }
}

describe('Run on the cluster', () => {
  it('is offered only where the backend has Slurm, and its fields only once it is ticked', async () => {
    const without = await statsForm(false)
    expect(without.wrapper.find('[data-testid="stats-cluster-card"]').exists()).toBe(false)
    without.wrapper.unmount()
    const { wrapper } = await statsForm(true)
    expect(wrapper.find('[data-testid="stats-cluster-card"]').exists()).toBe(true)
    expect(wrapper.find('[data-testid="stats-cluster-time"]').exists()).toBe(false)
    await field(wrapper, 'enabled').setValue(true)
    for (const name of ['partition', 'time', 'nodes', 'ntasks', 'cpusPerTask', 'gpusPerTask', 'arrayParallelism']) expect(field(wrapper, name).element.value).toBe('')
  })

  it('names a bad field by its label, in the CLI\'s words, and Run waits for it', async () => {
    const { api, wrapper } = await statsForm()
    await field(wrapper, 'enabled').setValue(true)
    const cases: [string, string, RegExp][] = [
      ['time', 'soon', /^Time limit must be minutes, minutes:seconds, hours:minutes:seconds/],
      ['time', '1-', /^Time limit must be minutes/],
      ['partition', 'gpu queue', /^Partition must be a partition name/],
      ['ntasks', '0', /^Ranks must be a whole number from 1 to 1000000, got "0"/],
      ['gpusPerTask', '65', /^GPUs per rank must be a whole number from 1 to 64, got "65"/],
      ['arrayParallelism', '2.5', /^Tasks at once must be a whole number/],
    ]
    for (const [name, value, message] of cases) {
      await field(wrapper, name).setValue(value)
      expect(wrapper.get('[data-testid="stats-cluster-problem"]').text(), `${name} ${value}`).toMatch(message)
      // The setup's own row says it too, beside the disabled Run.
      expect(wrapper.get('[data-testid="stats-problem"]').text()).toMatch(message)
      expect(run(wrapper).attributes('disabled')).toBeDefined()
      await field(wrapper, name).setValue('')
    }
    expect(wrapper.find('[data-testid="stats-cluster-problem"]').exists()).toBe(false)
    expect(run(wrapper).attributes('disabled')).toBeUndefined()
    // Unticked, the fields do not matter: Run runs here.
    await field(wrapper, 'time').setValue('soon')
    await field(wrapper, 'enabled').setValue(false)
    expect(run(wrapper).attributes('disabled')).toBeUndefined()
    await run(wrapper).trigger('click')
    await flushPromises()
    expect(api.started).toHaveLength(1)
    expect(api.clusterSubmitted).toEqual([])
  })

  it('submits the form\'s run with the fields given, not a local job, and shows its merged results when they are kept', async () => {
    const { api, wrapper } = await statsForm()
    await field(wrapper, 'enabled').setValue(true)
    await field(wrapper, 'partition').setValue(' cpu ')
    await field(wrapper, 'time').setValue('2:00:00')
    await field(wrapper, 'arrayParallelism').setValue('2')
    await run(wrapper).trigger('click')
    await flushPromises()
    expect(api.started).toEqual([])
    expect(api.clusterSubmitted).toHaveLength(1)
    const [sent] = api.clusterSubmitted
    expect(sent.workload).toBe('stats')
    expect(sent.request).toEqual({ partition: 'cpu', time: '2:00:00', arrayParallelism: 2 })
    expect((sent.params as { files: string[] }).files).toEqual(['/data/a.csv', '/data/b.csv'])
    const note = wrapper.get('[data-testid="stats-cluster-submitted"]').text()
    expect(note).toMatch(/^Submitted job 102 \(1 task\) and its merge job 103: follow it on the Cluster page/)
    expect(note).toContain('/home/user/paralab/cluster-runs/stats-102')

    const result = statsResult(statsFile('/data/a.csv', { acc_x: [1, 2, 3] }, ['serial'], [3]), statsFile('/data/b.csv', { acc_x: [4, 5, 6] }, ['serial'], [3]))
    const merged = { ...statsEnvelope(result), cluster: { job_id: '102', nodes: ['n1', 'n2'], tasks: [{ index: 0, state: 'COMPLETED' }, { index: 1, state: 'FAILED' }], failed: [1] } }
    // Another run's results are not this view's.
    api.emit({ type: 'done', jobId: clusterEventId('98'), workload: 'stats', envelope: merged })
    await flushPromises()
    expect(wrapper.find('[data-testid="stats-results"]').exists()).toBe(false)
    api.emit({ type: 'done', jobId: clusterEventId('102'), workload: 'stats', envelope: merged })
    await flushPromises()
    expect(wrapper.find('[data-testid="stats-results"]').exists()).toBe(true)
    expect(wrapper.get('[data-testid="stats-cluster-run"]').text()).toMatch(/^Ran on the cluster: job 102, 2 tasks on n1, n2, started .*; tasks that did not complete: 1\.$/)
  })

  it('reports a refused submission in the error log', async () => {
    const { api, wrapper, errors } = await statsForm()
    api.submitClusterJob = async () => {
      throw { code: 'io', message: 'sbatch failed: invalid partition specified: cpu' }
    }
    await field(wrapper, 'enabled').setValue(true)
    await run(wrapper).trigger('click')
    await flushPromises()
    expect(errors.notices.value.map((n) => n.message)).toEqual([expect.stringContaining('sbatch failed: invalid partition specified: cpu')])
    expect(wrapper.find('[data-testid="stats-cluster-submitted"]').exists()).toBe(false)
  })

  it('lands once for every workload, from the shared page', async () => {
    const api = fakeApi(true)
    const { wrapper } = mountWith(PathsView, api)
    await flushPromises()
    expect(wrapper.find('[data-testid="paths-cluster-card"]').exists()).toBe(true)
  })
})
