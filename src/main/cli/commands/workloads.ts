import { formatLine, formatsOf } from '../../../shared/formats'
import { WORKLOADS } from '../../../shared/workloads'
import { writeJson, type Command } from '../../terminal/command'

export const workloadsCommand: Command = {
  name: 'workloads',
  summary: 'List the workloads, with their backends, file formats and parameters.',
  usage: 'paralab workloads [--json]',
  help: '  --json      print them as one JSON object on stdout',
  options: { json: { type: 'boolean' } },
  async run(values) {
    if (values.json)
      writeJson(
        WORKLOADS.map((w) => ({
          id: w.id,
          title: w.title,
          summary: w.summary,
          backends: w.backends,
          formats: formatsOf(w.id).map((f) => ({ id: f.id, name: f.name, extensions: f.extensions, ...f.workloads[w.id] })),
          params: w.params,
          phases: w.phases,
          example: w.example,
        })),
      )
    else {
      const width = Math.max(...WORKLOADS.map((w) => w.id.length)) + 1
      for (const w of WORKLOADS)
        process.stdout.write(
          `${w.id.padEnd(width)} ${w.summary}\n${' '.repeat(width + 1)}backends: ${w.backends.map((b) => b.id).join(', ')}; run \`paralab ${w.id} --help\`\n` +
            formatsOf(w.id).map((f) => `${' '.repeat(width + 1)}format: ${formatLine(f, w.id)}\n`).join(''),
        )
    }
    return 0
  },
}
