// `paralab stats --out DIR`: the three charts of each file as SVG and PNG, and the results as JSON
// and CSV. Everything is rendered in memory and every target checked before the first write.
import { access, mkdir } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { ApiError } from '../../../shared/api'
import { statsChartSpecs } from '../../../shared/workloads/stats/charts'
import type { StatsResult } from '../../../shared/workloads/stats/types'
import { renderChart } from '../../charts/render'
import { writeFileAtomic } from '../../charts/atomic-write'
import { formatResults } from './results-format'

export async function writeStatsOutputs(dir: string, result: StatsResult, opts: { force?: boolean } = {}): Promise<string[]> {
  const outputs: { path: string; data: Uint8Array | string }[] = []
  const stems = result.files.map((f) => basename(f.path, extname(f.path)))
  for (const [i, file] of result.files.entries()) {
    // Several inputs with one name (a/x.csv, b/x.csv) get numbered prefixes.
    const stem = stems.indexOf(stems[i]) === stems.lastIndexOf(stems[i]) ? stems[i] : `${i + 1}-${stems[i]}`
    const charts = statsChartSpecs(file)
    for (const [name, spec] of Object.entries(charts))
      for (const format of ['svg', 'png'] as const) outputs.push({ path: join(dir, `${stem}-${name}.${format}`), data: await renderChart(spec, format) })
  }
  outputs.push({ path: join(dir, 'results.json'), data: formatResults(result, 'json') })
  outputs.push({ path: join(dir, 'results.csv'), data: formatResults(result, 'csv') })

  if (!opts.force)
    for (const o of outputs)
      if (await access(o.path).then(() => true, () => false)) throw new ApiError('io', `${o.path} exists (use --force to overwrite)`)
  await mkdir(dir, { recursive: true }).catch((e: Error) => {
    throw new ApiError('io', `cannot create ${dir}: ${e.message}`)
  })
  for (const o of outputs) await writeFileAtomic(o.path, o.data, { overwrite: opts.force })
  return outputs.map((o) => o.path)
}
