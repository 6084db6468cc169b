// Worker thread entry: solves a shortest-paths problem on one CPU backend (cpu-thread.ts). The
// parallel backends start their own worker threads from here.
import { serveTasks, transferable } from '../../workers/serve-tasks'
import { blockedSolver } from './blocked'
import type { ThreadSolveTask } from './cpu-thread'
import { runName, type Solver } from './solver-contract'
import { serialSolver } from './serial'

// One solver per run, kept between repeats (the parallel ones keep their threads).
const solvers = new Map<string, Solver>()

function solverFor({ spec, threads }: ThreadSolveTask): Solver {
  const name = runName(spec)
  let solver = solvers.get(name)
  if (!solver) {
    solver = spec.backend === 'serial' ? serialSolver : blockedSolver(spec.backend as Parameters<typeof blockedSolver>[0], spec.block!, { threads })
    solvers.set(name, solver)
  }
  return solver
}

serveTasks({
  solve: async (task: ThreadSolveTask) => {
    const progress = new Float64Array(task.progress)
    const solved = await solverFor(task).solve(task.problem, task.paths, { progress: (f) => (progress[0] = f), ...(task.checkpoint && { checkpoint: task.checkpoint }) })
    // Plain buffers move to the main thread; shared ones are shared as they are.
    const moved = [solved.d.buffer, solved.key?.buffer].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer)
    return transferable(solved, [...new Set(moved)])
  },
})
