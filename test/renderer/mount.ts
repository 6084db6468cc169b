// Mounting a dashboard component with a fake backend, as main.ts mounts the real one.
import { mount } from '@vue/test-utils'
import type { Component } from 'vue'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import type { FakeApi } from './fake-api'

export function mountWith(component: Component, api: FakeApi) {
  const errors = createErrorLog()
  const wrapper = mount(component, { global: { provide: dashboardProvides(api, errors) }, attachTo: document.body })
  return { wrapper, errors }
}

/** What a vue-chartjs Chart was given, typed for the fields the tests read. */
export interface DrawnChart {
  type: string
  data: { datasets: { label: string; data: { x: number; y: number }[] }[] }
  options: { scales: Record<string, { type: string; min?: number; max?: number; title?: { text: string } }>; plugins: { title: { text: string }; subtitle?: { text: string } } }
}

export function drawn(chart: { props(): unknown }): DrawnChart {
  const { type, data, options } = chart.props() as DrawnChart
  return { type, data, options }
}
