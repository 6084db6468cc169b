// The registry of workload engines: the only place in src/main that names every workload.
import type { AnyEngine } from '../engine'
import { deviceEngine } from './device'
import { statsEngine } from './stats'
import { pathsEngine } from './paths'
import { correlationEngine } from './correlation'
import { landslideEngine } from './landslide'

export const ENGINES: readonly AnyEngine[] = [deviceEngine, statsEngine, pathsEngine, correlationEngine, landslideEngine]
