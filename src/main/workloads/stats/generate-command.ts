import { ApiError } from '../../../shared/errors'
import { generateAccCsv } from './generate-acc'
import { intOption, UsageError, writeJson, type Command, makeParents } from '../../terminal/command'
import { progressBar } from '../../terminal/progress'
import { onInterrupt } from '../../terminal/interrupt'

export const generateAccCommand: Command = {
  name: 'generate acc',
  summary: 'Write a synthetic accelerometer CSV (or the same rows as Parquet or Arrow) in the BIG IDEAs dataset layout, for tests and benchmarks.',
  usage: 'paralab generate acc <out.csv|out.parquet|out.arrow> --rows N [--seed S] [--force] [--json]',
  help: [
    '  <out>       .csv, or .parquet / .arrow / .feather for the same rows as a table (datetime as timestamps, counts as doubles)',
    '  --rows N    data rows to write (32 per second of recording)',
    '  --seed S    seed of the generator (default 1); the same seed gives the same file',
    '  --force     replace <out.csv> if it exists',
    '  --json      print {"path","rows","bytes"} on stdout',
  ].join('\n'),
  options: { rows: { type: 'string' }, seed: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1) throw new UsageError('generate acc needs exactly one output file')
    if (values.rows === undefined) throw new UsageError('generate acc needs --rows N')
    const rows = intOption(values.rows, 'rows', 1, 2 ** 40)!
    const seed = intOption(values.seed, 'seed', 0, 2 ** 32 - 1)
    await makeParents(positionals)
    const bar = progressBar()
    const controller = new AbortController()
    const stopListening = onInterrupt(() => controller.abort())
    try {
      const made = await generateAccCsv(positionals[0], {
        rows,
        seed,
        force: values.force,
        signal: controller.signal,
        progress: (p) => bar.update({ phase: 'writing', fraction: p.rows / p.total }),
      }).catch((e: unknown) => {
        throw controller.signal.aborted ? new ApiError('cancelled', 'cancelled: nothing was written') : e
      })
      bar.done(true)
      if (values.json) writeJson({ path: positionals[0], ...made })
      else process.stdout.write(`wrote ${positionals[0]}: ${made.rows} rows, ${(made.bytes / 1e6).toFixed(1)} MB\n`)
      return 0
    } finally {
      bar.done(false)
      stopListening()
    }
  },
}
