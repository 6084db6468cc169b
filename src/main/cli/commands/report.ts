// `paralab report <results.json|run folder>`: the report of an earlier run (an envelope `--out`,
// `--json` or the dashboard's Export JSON wrote), as one self-contained HTML file. The envelope is
// checked first: one that was edited so that it contradicts itself is refused, naming the field.
import { basename, dirname, join } from 'node:path'
import { UsageError, type Command } from '../../terminal/command'

/** `runs/acc` → `runs/acc.html`; `x/acc.json` → `x/acc.html`. */
export function defaultReportPath(source: string): string {
  const trimmed = source.replace(/[\\/]+$/, '') || source
  return join(dirname(trimmed), `${basename(trimmed).replace(/\.json$/i, '')}.html`)
}

export const reportCommand: Command = {
  name: 'report',
  summary: 'Write the report of an earlier run (its results.json or --out folder) as one self-contained HTML file.',
  usage: 'paralab report <results.json|run folder> [--output FILE] [--force]',
  help: [
    '  <results.json|run folder>  a run\'s envelope (--out\'s results.json, --json\'s output, the dashboard\'s Export JSON) or the --out folder holding it',
    '  --output FILE, -o FILE  where to write the report (default: the envelope\'s or folder\'s name with .html, beside it)',
    '  --force  replace FILE if it exists',
  ].join('\n'),
  options: { output: { type: 'string', short: 'o' }, force: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1) throw new UsageError(`report takes one envelope or run folder, got ${positionals.length ? positionals.join(' ') : 'none'}`)
    const source = positionals[0]
    const output: string = values.output ?? defaultReportPath(source)
    const [{ readEnvelope }, { checkReportPath, makeReport, writeReport }, { ENGINES }] = await Promise.all([
      import('../../report/read-envelope'),
      import('../../report/make-report'),
      import('../../workloads'),
    ])
    await checkReportPath(output, !!values.force, '--output')
    const { value, file } = await readEnvelope(source)
    const id = (value as { workload?: unknown } | null)?.workload
    const html = await makeReport(value, { source: file, engine: ENGINES.find((e) => e.definition.id === id) })
    await writeReport(output, html, !!values.force)
    process.stdout.write(`${output}\n`)
  },
}
