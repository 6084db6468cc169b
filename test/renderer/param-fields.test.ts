// @vitest-environment happy-dom
// The forms made from the parameter schemas: ParamFields draws the fields, useWorkloadForm holds
// their values and turns them into parameters. Every workload's form is checked against its schema.
import { mount, type VueWrapper } from '@vue/test-utils'
import { afterEach, describe, expect, it } from 'vitest'
import { WORKLOADS } from '../../src/shared/workloads'
import type { WorkloadDefinition } from '../../src/shared/workloads/definition'
import { deviceWorkload } from '../../src/shared/workloads/device'
import { defaultParams, flagName, type ParamSpec } from '../../src/shared/workloads/schema'
import { statsWorkload } from '../../src/shared/workloads/stats'
import ParamFields from '../../src/renderer/components/ParamFields.vue'
import { useWorkloadForm } from '../../src/renderer/composables/useWorkloadForm'

afterEach(() => {
  document.body.innerHTML = ''
})

function mountForm(def: WorkloadDefinition, props: { exclude?: string[]; unavailable?: Record<string, Record<string, string>>; disabled?: boolean } = {}) {
  const form = useWorkloadForm(def)
  const wrapper = mount(ParamFields, { props: { definition: def, values: form.values, ...props }, attachTo: document.body })
  return { form, wrapper }
}

const input = (w: VueWrapper, id: string) => w.get<HTMLInputElement>(`[data-testid="${id}"]`)

describe.each(WORKLOADS.map((w) => [w.id, w as WorkloadDefinition] as const))('%s form', (id, def) => {
  const params = Object.entries(def.params as Record<string, ParamSpec>)

  it('has a field for every declared parameter but files, showing its default', () => {
    const { wrapper } = mountForm(def)
    let fields = 0
    for (const [name, spec] of params) {
      const tid = `${id}-${flagName(name, spec)}`
      if (spec.type === 'files' || spec.cliOnly) {
        // Files are chosen in the FilePicker beside the form; command-line-only parameters have no field.
        expect(wrapper.find(`[data-testid="${tid}"]`).exists(), name).toBe(false)
        continue
      }
      fields++
      switch (spec.type) {
        case 'choices':
          for (const c of spec.choices) expect(input(wrapper, `${tid}-${c}`).element.checked, `${name} ${c}`).toBe(spec.default.includes(c))
          expect(input(wrapper, `${tid}-all`).element.checked, name).toBe(spec.choices.every((c) => spec.default.includes(c)))
          break
        case 'boolean':
          expect(input(wrapper, tid).element.checked, name).toBe(spec.default)
          break
        case 'choice':
          expect(wrapper.get<HTMLSelectElement>(`[data-testid="${tid}"]`).element.value, name).toBe(spec.default)
          break
        case 'int':
        case 'number':
          expect(input(wrapper, tid).element.value, name).toBe(spec.default === undefined ? '' : String(spec.default))
          expect(input(wrapper, tid).attributes('min'), name).toBe(String(spec.min))
          expect(input(wrapper, tid).attributes('max'), name).toBe(String(spec.max))
          break
        case 'names':
          expect(input(wrapper, tid).element.value, name).toBe('')
          break
      }
      // The label and help of the schema are what the user reads.
      const field = wrapper.get(`[data-testid^="${tid}"]`).element.closest('[title]')
      expect(field?.getAttribute('title'), name).toContain(spec.help)
      expect(field?.textContent, name).toContain(spec.label)
    }
    expect(fields).toBeGreaterThan(0)
    expect(wrapper.findAll('input, select').length).toBeGreaterThanOrEqual(fields)
  })

  it('turns an edit of any field into that parameter', async () => {
    for (const [name, spec] of params) {
      if (spec.type === 'files' || spec.cliOnly) continue
      const { form, wrapper } = mountForm(def)
      const tid = `${id}-${flagName(name, spec)}`
      let want: unknown
      switch (spec.type) {
        case 'choices': {
          // Tick one more choice, or untick one when all are ticked by default.
          const extra = spec.choices.find((c) => !spec.default.includes(c))
          await input(wrapper, `${tid}-${extra ?? spec.choices[0]}`).setValue(extra !== undefined)
          want = extra !== undefined ? spec.choices.filter((c) => c === extra || spec.default.includes(c)) : spec.choices.slice(1)
          break
        }
        case 'boolean':
          await input(wrapper, tid).setValue(!spec.default)
          want = !spec.default
          break
        case 'choice':
          want = spec.choices.find((c) => c !== spec.default)
          await wrapper.get(`[data-testid="${tid}"]`).setValue(want)
          break
        case 'int':
        case 'number':
          want = spec.default === spec.max ? spec.min : spec.max
          await input(wrapper, tid).setValue(String(want))
          break
        case 'names':
          await input(wrapper, tid).setValue('first, second')
          want = ['first', 'second']
          break
      }
      const got = form.params.value[name]
      // A list of choices is compared as a set: the backend's validation puts it in canonical order.
      if (spec.type === 'choices') expect([...(got as string[])].sort(), name).toEqual([...(want as string[])].sort())
      else expect(got, name).toEqual(want)
      wrapper.unmount()
    }
  })

  it('makes the schema\'s default parameters before anything is edited', () => {
    const { form } = mountForm(def)
    const { [params.find(([, s]) => s.type === 'files')?.[0] ?? '']: files, ...rest } = form.params.value
    expect(rest).toEqual(defaultParams(def.params))
    // A workload that reads files starts with none chosen, and says so.
    if (params.some(([, s]) => s.type === 'files')) {
      expect(files).toEqual([])
      expect(form.problem.value).toMatch(/^Choose the [\w ]+ to read$/)
    } else expect(form.problem.value).toBeNull()
  })
})

describe('stats form', () => {
  it('turns edits into parameters', async () => {
    const { form, wrapper } = mountForm(statsWorkload)
    form.values.files = ['/d/a.csv']
    await wrapper.get('[data-testid="stats-columns"]').setValue('acc_y, acc_x')
    await input(wrapper, 'stats-backend-serial').setValue(true)
    await input(wrapper, 'stats-backend-workers-simd').setValue(false)
    await wrapper.get('[data-testid="stats-precision"]').setValue('f32')
    await wrapper.get('[data-testid="stats-repeat"]').setValue('7')
    await wrapper.get('[data-testid="stats-batches"]').setValue('20')
    expect(form.params.value).toEqual({ ...defaultParams(statsWorkload.params), files: ['/d/a.csv'], columns: ['acc_y', 'acc_x'], backends: ['serial'], precision: 'f32', repeat: 7, batches: 20 })
    expect(form.problem.value).toBeNull()
  })

  it('an invalid value is the problem, in the validation\'s words', async () => {
    const { form, wrapper } = mountForm(statsWorkload)
    form.values.files = ['/d/a.csv']
    await wrapper.get('[data-testid="stats-repeat"]').setValue('1001')
    expect(form.problem.value).toBe('Repeat must be an integer in 1…1000; got 1001')
    await wrapper.get('[data-testid="stats-repeat"]').setValue('1000')
    expect(form.problem.value).toBeNull()
  })

  it('leaves an empty optional field out', async () => {
    const { form, wrapper } = mountForm(statsWorkload)
    await wrapper.get('[data-testid="stats-columns"]').setValue('acc_x')
    expect(form.params.value.columns).toEqual(['acc_x'])
    await wrapper.get('[data-testid="stats-columns"]').setValue(' , ')
    expect('columns' in form.params.value).toBe(false)
  })

  it('"all" ticks every usable choice; an unavailable one is disabled with its reason', async () => {
    const { form, wrapper } = mountForm(statsWorkload, { unavailable: { backends: { gpu: 'GPU unavailable: no adapter' } } })
    const gpu = input(wrapper, 'stats-backend-gpu')
    expect(gpu.element.disabled).toBe(true)
    expect(gpu.element.closest('label')?.getAttribute('title')).toBe('GPU unavailable: no adapter')
    await input(wrapper, 'stats-backend-all').setValue(true)
    expect(form.values.backends).toEqual(['serial', 'simd', 'workers', 'workers-simd'])
    // Every usable one ticked counts as "all".
    expect(input(wrapper, 'stats-backend-all').element.checked).toBe(true)
    await input(wrapper, 'stats-backend-all').setValue(false)
    expect(form.values.backends).toEqual([])
  })
})

describe('device form', () => {
  it('leaves the excluded parameter out of the fields, and empty optional numbers out of the parameters', async () => {
    const { form, wrapper } = mountForm(deviceWorkload, { exclude: ['measure'] })
    expect(wrapper.find('[data-testid="device-measure"]').exists()).toBe(false)
    expect(input(wrapper, 'device-read-mb').attributes('placeholder')).toBe('auto')
    expect(form.params.value).toEqual({ measure: false })
    await input(wrapper, 'device-read-mb').setValue('32')
    await input(wrapper, 'device-repeat').setValue('4')
    expect(form.params.value).toEqual({ measure: false, readMb: 32, repeat: 4 })
    await input(wrapper, 'device-read-mb').setValue('')
    expect(form.params.value).toEqual({ measure: false, repeat: 4 })
    await input(wrapper, 'device-repeat').setValue('1001')
    expect(form.problem.value).toBe('Repeat must be an integer in 1…1000; got 1001')
  })

  it('shows the values set from outside (an example) and can be disabled as a whole', async () => {
    const { form, wrapper } = mountForm(deviceWorkload, { disabled: true })
    form.set({ measure: true, readMb: 16, repeat: 3 })
    await wrapper.vm.$nextTick()
    expect(input(wrapper, 'device-measure').element.checked).toBe(true)
    expect(input(wrapper, 'device-read-mb').element.value).toBe('16')
    expect(input(wrapper, 'device-repeat').element.value).toBe('3')
    expect(wrapper.findAll('input').every((i) => (i.element as HTMLInputElement).disabled)).toBe(true)
  })
})
