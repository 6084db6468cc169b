// The registry of workload views: the only place in the dashboard that names every workload.
// Navigation, routing and the jobs list follow it; titles and hints come from the definitions.
import type { Component } from 'vue'
import { workload, type WorkloadId } from '../../shared/workloads'
import DeviceView from './device/DeviceView.vue'
import StatsView from './stats/StatsView.vue'
import PathsView from './paths/PathsView.vue'

const VIEW_COMPONENTS: { id: WorkloadId; component: Component }[] = [
  { id: 'device', component: DeviceView },
  { id: 'stats', component: StatsView },
  { id: 'paths', component: PathsView },
]

export const VIEWS = VIEW_COMPONENTS.map(({ id, component }) => ({ id, component, label: workload(id).title, hint: workload(id).summary }))
