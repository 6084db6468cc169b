// Worker thread entry: reads record batches of an Arrow IPC file into the loader's shared columns, and the dictionaries of its dictionary-encoded ones.
import { serveTasks } from '../../workers/serve-tasks'
import { readBatch, readDictionary } from './batch'

serveTasks({ readBatch, readDictionary })
