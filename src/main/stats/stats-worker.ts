// Worker thread entry: statistics kernels over shared columns.
import { serveTasks } from '../workers/serve-tasks'

serveTasks({})
