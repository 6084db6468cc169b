// Worker thread entry: parses a Parquet file's footer, and reads row groups into the loader's shared columns.
import { serveTasks } from '../../workers/serve-tasks'
import { codecsReady } from './codecs'
import { planParquet } from './plan'
import { readRowGroup, type RowGroupTask } from './row-group'

serveTasks({
  planParquet,
  readRowGroup: async (task: RowGroupTask) => {
    await codecsReady()
    return readRowGroup(task)
  },
})
