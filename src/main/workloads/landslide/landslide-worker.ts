// Worker thread entry: runs one row band of a landslide simulation (band-exchange.ts).
import { serveTasks } from '../../workers/serve-tasks'
import { type BandTask, runBand } from './band-exchange'

serveTasks({
  advance: (task: BandTask) => runBand(task),
})
