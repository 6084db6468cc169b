// Worker thread entry: parses byte ranges of a CSV file.
import { serveTasks } from '../workers/serve-tasks'

serveTasks({})
