// Worker thread entry: reads row groups of a Parquet file into the loader's shared columns.
import { serveTasks } from '../../workers/serve-tasks'
import { readRowGroup } from './row-group'

serveTasks({ readRowGroup })
