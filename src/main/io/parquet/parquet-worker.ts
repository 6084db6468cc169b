// Worker thread entry: reads row groups of a Parquet file into the loader's shared columns.
import { serveTasks } from '../../workers/serve-tasks'
import { codecsReady } from './codecs'
import { readRowGroup, type RowGroupTask } from './row-group'

serveTasks({
  readRowGroup: async (task: RowGroupTask) => {
    await codecsReady()
    return readRowGroup(task)
  },
})
