// `paralab jobs`: the cluster jobs this user submitted from Paralab, with each task's state and,
// while it runs, its progress (from the events the task writes into its folder); `jobs cancel ID`.
// The cluster code loads when one of these runs.
import { CLUSTER_JOB_ID, hasEnded } from '../../../shared/cluster'
import { ApiError } from '../../../shared/errors'
import type { JobView } from '../../cluster/follow'
import { UsageError, writeJson, type Command } from '../../terminal/command'
import { maxOf } from '../../../shared/extent'

function clock(s: number): string {
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  return `${h ? `${h}:${String(m).padStart(2, '0')}` : m}:${String(s % 60).padStart(2, '0')}`
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => maxOf(rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n'
}

function describeJobs(jobs: JobView[]): string {
  if (jobs.length === 0) return 'No Paralab jobs in the queue.\n'
  const rows = [['JOB', 'WORKLOAD', 'STATE', 'ELAPSED', 'NODES', 'PROGRESS', 'FOLDER']]
  for (const j of jobs) {
    rows.push([j.job_id, j.merge ? `${j.workload} (merge)` : j.workload, j.state, clock(j.elapsed_s), j.nodes.join(',') || '-', '', j.dir])
    if (j.merge) continue
    for (const t of j.tasks) {
      const p = t.progress && !hasEnded(t.state) ? `${(t.progress.fraction * 100).toFixed(0)}% ${t.progress.phase}` : t.exit_code ? `exit ${t.exit_code}` : ''
      rows.push([`  ${t.job_id}`, '', t.state, clock(t.elapsed_s), t.node ?? '-', p, ''])
    }
  }
  return table(rows)
}

export const jobsCommand: Command = {
  name: 'jobs',
  summary: 'The cluster jobs you submitted from Paralab: state, elapsed time, nodes and each running task\'s progress.',
  usage: 'paralab jobs [--json]',
  help: '  --json  print { jobs: [...] }: each job with its folder, state, nodes and tasks (state, exit code, node, elapsed seconds, progress)',
  options: { json: { type: 'boolean' } },
  async run(values) {
    const { listJobs } = await import('../../cluster/follow')
    const jobs = await listJobs()
    if (values.json) writeJson({ jobs })
    else process.stdout.write(describeJobs(jobs))
  },
}

export const jobsCancelCommand: Command = {
  name: 'jobs cancel',
  summary: 'Cancel a cluster job, or one task of a job array (ID_INDEX), with scancel.',
  usage: 'paralab jobs cancel ID',
  help: '  ID  a job id from `paralab jobs`, e.g. 12, or 12_3 for one task of an array',
  options: {},
  allowPositionals: true,
  async run(_values, positionals) {
    const id = positionals[0]
    if (positionals.length !== 1 || !CLUSTER_JOB_ID.test(id)) throw new UsageError(`jobs cancel takes one job id (e.g. 12 or 12_3), got ${positionals.join(' ') || 'none'}`)
    const { findParalabJob, paralabQueue, scancel } = await import('../../cluster/slurm-jobs')
    // scancel says nothing and exits 0 for an id it does not know: the queue is asked first.
    const queue = await paralabQueue()
    const found = findParalabJob(queue, id)
    if (!found) throw new ApiError('invalid-argument', `job ${id} is not one of your Paralab jobs in Slurm's queue (paralab jobs lists them); nothing was cancelled`)
    const records = id.includes('_') ? [found] : queue.filter((r) => String(r.job_id) === id || String(r.array_job_id) === id)
    if (records.every((r) => hasEnded(r.job_state))) throw new ApiError('invalid-argument', `job ${id} has already ended (${[...new Set(records.map((r) => r.job_state))].sort().join(', ')}); nothing was cancelled`)
    await scancel(id)
    process.stderr.write(`paralab: cancelled ${id}\n`)
  },
}
