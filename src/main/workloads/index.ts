// The registry of workload engines: the only place in src/main that names every workload.
import type { AnyEngine } from '../engine'
import { deviceEngine } from './device'
import { statsEngine } from './stats'

export const ENGINES: readonly AnyEngine[] = [deviceEngine, statsEngine]
