// `--out DIR` of any workload: the envelope as results.json, each result table as <name>.csv and
// each chart as SVG and PNG. Everything is rendered in memory and every target checked before the
// first write, so a failure leaves nothing half-written.
import { access, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiError } from '../../shared/errors'
import { workload } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { tableCsv } from '../../shared/workloads/tables'
import { renderChart } from '../charts/render'
import { writeFileAtomic } from '../io/atomic-write'

export async function writeOutputs(dir: string, env: ResultEnvelope, opts: { force?: boolean } = {}): Promise<string[]> {
  const def = workload(env.workload)
  const results = env.results as never
  const outputs: { path: string; data: Uint8Array | string }[] = [{ path: join(dir, 'results.json'), data: JSON.stringify(env, null, 2) + '\n' }]
  for (const table of def.tables(results)) outputs.push({ path: join(dir, `${table.name}.csv`), data: tableCsv(table) })
  for (const chart of def.charts(results))
    for (const format of ['svg', 'png'] as const) outputs.push({ path: join(dir, `${chart.name}.${format}`), data: await renderChart(chart.spec, format) })

  if (!opts.force)
    for (const o of outputs)
      if (await access(o.path).then(() => true, () => false)) throw new ApiError('io', `${o.path} exists (use --force to overwrite)`)
  await mkdir(dir, { recursive: true }).catch((e: Error) => {
    throw new ApiError('io', `cannot create ${dir}: ${e.message}`)
  })
  for (const o of outputs) await writeFileAtomic(o.path, o.data, { overwrite: opts.force })
  return outputs.map((o) => o.path)
}
