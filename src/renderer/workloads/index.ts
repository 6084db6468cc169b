// The registry of workload views: the only place in the dashboard that names every workload.
// Navigation, routing and the jobs list follow it; titles and hints come from the definitions.
import type { Component } from 'vue'
import { workload, type WorkloadId } from '../../shared/workloads'
import DeviceView from './device/DeviceView.vue'
import StatsView from './stats/StatsView.vue'
import PathsView from './paths/PathsView.vue'
import CorrelationView from './correlation/CorrelationView.vue'
import LandslideView from './landslide/LandslideView.vue'
import GridDifference from './landslide/GridDifference.vue'

/**
 * `comparison`: what Compare shows of the workload's runs beyond their timings, given the runs
 * (`runs`: each run's id, its name as Compare shows it and when it started), e.g. the landslide's
 * final grids, B − A.
 */
const VIEW_COMPONENTS: { id: WorkloadId; component: Component; comparison?: Component }[] = [
  { id: 'device', component: DeviceView },
  { id: 'stats', component: StatsView },
  { id: 'paths', component: PathsView },
  { id: 'correlation', component: CorrelationView },
  { id: 'landslide', component: LandslideView, comparison: GridDifference },
]

export const VIEWS = VIEW_COMPONENTS.map(({ id, component, comparison }) => ({ id, component, comparison, label: workload(id).title, hint: workload(id).summary }))
