// Worker thread entry: reads record batches of an Arrow IPC file into the loader's shared columns.
import { serveTasks } from '../../workers/serve-tasks'
import { readBatch } from './batch'

serveTasks({ readBatch })
