// `paralab merge DIR`: merges a cluster run's tasks into its result set by hand, e.g. after some
// tasks were submitted again; the merge job runs the same. Prints the results as the local run does.
import { ApiError } from '../../../shared/errors'
import { ENGINES } from '../../workloads'
import { UsageError, type Command } from '../../terminal/command'

const engineFor = (id: string) => {
  const engine = ENGINES.find((e) => e.definition.id === id)
  if (!engine) throw new ApiError('invalid-input', `the job's workload "${id}" is not one this paralab knows`)
  return engine
}

export const mergeCommand: Command = {
  name: 'merge',
  summary: 'Merge the tasks of a cluster run into its result set (the merge job does it; this does it by hand).',
  usage: 'paralab merge DIR [--json]',
  help: [
    '  DIR     the --out folder of a cluster run (job.json, tasks/<index>/)',
    '  --json  print the merged envelope, with `cluster`: the job, its nodes and every task\'s state',
  ].join('\n'),
  options: { json: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1) throw new UsageError(`merge takes one folder, got ${positionals.length ? positionals.join(' ') : 'none'}`)
    // The cluster code loads only for this command.
    const [{ mergeJob }, { presentMerged }] = await Promise.all([import('../../cluster/merge-run'), import('../cluster-run')])
    const merged = await mergeJob(positionals[0], engineFor)
    return presentMerged(engineFor(merged.envelope?.workload ?? merged.runs![0].workload), merged, !!values.json)
  },
}
