// Worker thread entry: parses byte ranges of a CSV file into the loader's shared columns.
import { serveTasks } from '../workers/serve-tasks'
import { parseRange } from './csv/parse-range'

serveTasks({ parseRange })
