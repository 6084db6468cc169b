// `paralab bench headline`: the headline figures beside their same-card baselines, in alternated
// rounds; compared with the figures the last release saved in docs/bench/ (the card named), and a
// non-zero exit naming any figure slower beyond the noise measured. The bench loads only when run.
import { readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { intOption, UsageError, writeJson, type Command } from '../../terminal/command'
import { checkSave, SAVE_HELP, SAVE_OPTIONS, saveJson } from '../../terminal/save-flag'

/** Where the last release's figures are kept, per mode. */
export const savedPath = (mode: 'gpu' | 'cpu') => `docs/bench/headline-${mode}.json`

export const benchHeadlineCommand: Command = {
  name: 'bench headline',
  summary: 'The headline figures beside same-card baselines (CUDA, PyTorch, C), alternated; fails on a slowdown against the saved release figures.',
  usage: 'paralab bench headline [--cpu] [--rounds R] [--only ID,…] [--against CLI[,NAME=CLI…]] [--tessina DIR] [--saved FILE | --no-saved] [--small] [--json] [--save FILE [--force]]',
  help: [
    '  --cpu            the 2-core figures: landslide active against the C SciddicaT, correlation against NumPy, paths',
    '                   against SciPy, statistics end to end against its load and DuckDB (each skipped with a note when missing)',
    '                   (default: the GPU figures: landslide fused2 against CUDA SciddicaT, correlation against torch.corrcoef,',
    '                   paths at V = 5k/10k/20k against CUDA blocked Floyd–Warshall, statistics end to end against its load)',
    '  --rounds R       alternated rounds (default 8): every side of a figure runs once a round, in rotated order',
    '  --only ID,…      figures to run: landslide, correlation, paths (or paths-10000), stats',
    '  --against CLI    another build\'s out/main/cli.js (e.g. the last release\'s), alternated with this one on the landslide;',
    '                   CLI,NAME=CLI2,… alternates more builds beside them, each its own series (judged: the first only)',
    '  --tessina DIR    the folder of tessina_header.txt, tessina_dem.txt, tessina_source.txt (default data/landslide or ../shared/data/landslide)',
    `  --saved FILE     the release figures to compare with (default ${savedPath('gpu')} or ${savedPath('cpu')}, where present)`,
    '  --no-saved       compare with no saved figures',
    '  --small          small sizes: a smoke test of the command, not figures to save',
    '  --json           print the figures and verdicts as one JSON object on stdout',
    ...SAVE_HELP,
    'Exits 1 when a figure is slower than the saved one (or than the --against build) beyond the noise it measured.',
  ].join('\n'),
  options: {
    cpu: { type: 'boolean' },
    rounds: { type: 'string' },
    only: { type: 'string' },
    against: { type: 'string' },
    tessina: { type: 'string' },
    saved: { type: 'string' },
    'no-saved': { type: 'boolean' },
    small: { type: 'boolean' },
    json: { type: 'boolean' },
    ...SAVE_OPTIONS,
  },
  async run(values) {
    await checkSave(values.save, !!values.force)
    const mode = values.cpu ? 'cpu' : 'gpu'
    // --against CLI[,NAME=CLI…]: the first is the build judged against; the others are series beside it.
    const [against, ...rest] = values.against === undefined ? [] : String(values.against).split(',')
    const others = rest.map((entry) => {
      const at = entry.indexOf('=')
      const name = entry.slice(0, at)
      if (at < 1 || !/^[a-z][a-z0-9-]*$/.test(name) || ['this', 'release'].includes(name) || name.startsWith('cuda'))
        throw new UsageError(`--against: ${entry}: builds after the first are NAME=CLI, NAME in lower-case letters, digits and '-' (not this, release or cuda…)`)
      return { name, cli: resolve(entry.slice(at + 1)) }
    })
    for (const cli of [against, ...others.map((o) => o.cli)])
      if (cli !== undefined && !existsSync(cli)) throw new UsageError(`--against ${cli}: no such file (give another build's out/main/cli.js)`)
    const savedFile = values['no-saved'] ? undefined : (values.saved ?? (existsSync(savedPath(mode)) ? savedPath(mode) : undefined))
    let saved
    if (savedFile !== undefined) {
      try {
        saved = JSON.parse(await readFile(savedFile, 'utf8')).result ?? undefined
      } catch (e) {
        throw new ApiError('invalid-input', `--saved ${savedFile}: not a headline JSON file (${(e as Error).message})`)
      }
    }
    const [{ runHeadline }, { verdicts, slowdowns, headlineTable }] = await Promise.all([import('../../headline/run'), import('../../headline/verdict')])
    const result = await runHeadline({
      mode,
      rounds: intOption(values.rounds, 'rounds', 1, 100) ?? 8,
      small: !!values.small,
      ...(values.tessina !== undefined && { tessina: resolve(values.tessina) }),
      ...(against !== undefined && { against: resolve(against) }),
      ...(others.length > 0 && { others }),
      ...(values.only !== undefined && { only: String(values.only).split(',').map((s) => s.trim()) }),
      log: (line) => process.stderr.write(`${line}\n`),
    })
    const list = verdicts(result, saved)
    const slower = slowdowns(list)
    const output = { result, ...(savedFile && { saved_from: savedFile }), verdicts: list, slower }
    await saveJson(values.save, output, !!values.force)
    if (values.json) writeJson(output)
    else process.stdout.write(headlineTable(result, saved, list))
    for (const s of slower) process.stderr.write(`paralab: SLOWER: ${s}\n`)
    return slower.length ? 1 : 0
  },
}
