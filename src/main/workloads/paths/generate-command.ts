// `paralab generate graph`: random graphs in the format the file's name says, for tests and benchmarks.
import { intOption, UsageError, writeJson, type Command, makeParents } from '../../terminal/command'
import { FILE_FORMATS } from '../../../shared/formats'
import { MAX_GENERATED_VERTICES } from './generate-limits'

export const generateGraphCommand: Command = {
  name: 'generate graph',
  summary: 'Write a random weighted directed graph in the format its name says (course binary, DIMACS .gr, CSV edge list, Matrix Market .mtx), for tests and benchmarks.',
  usage: 'paralab generate graph <out> --vertices V --edges E [--max-weight W] [--seed S] [--force] [--json]',
  help: [
    '  <out>            the file to write, in the format its name says, as `paralab paths` reads it back: DIMACS where it ends in .gr',
    '                   (vertices 1…V), a CSV edge list in .csv (source,target,weight; vertices named 0…V − 1, those no edge',
    '                   names left out), Matrix Market (coordinate integer general) in .mtx, else the course\'s binary format',
    `  --vertices V     vertices, 1…${MAX_GENERATED_VERTICES}`,
    '  --edges E        distinct edges, drawn uniformly among the V(V − 1) pairs without self-loops',
    '  --max-weight W   weights are uniform in 0…W (default 1000, as the course)',
    '  --seed S         seed of the generator (default 1); the same seed gives the same file',
    '  --force          replace <out> if it exists',
    '  --json           print {"path","vertices","edges","bytes","format"} on stdout',
  ].join('\n'),
  options: { vertices: { type: 'string' }, edges: { type: 'string' }, 'max-weight': { type: 'string' }, seed: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1) throw new UsageError('generate graph needs exactly one output file')
    if (values.vertices === undefined || values.edges === undefined) throw new UsageError('generate graph needs --vertices V and --edges E')
    const vertices = intOption(values.vertices, 'vertices', 1, MAX_GENERATED_VERTICES)!
    const edges = intOption(values.edges, 'edges', 0, vertices * (vertices - 1))!
    const maxWeight = intOption(values['max-weight'], 'max-weight', 0, 2 ** 30 - 2)
    const seed = intOption(values.seed, 'seed', 0, 2 ** 32 - 1)
    await makeParents(positionals)
    const { writeGeneratedGraph } = await import('./generate-graph')
    const made = await writeGeneratedGraph(positionals[0], {
      vertices,
      edges,
      maxWeight,
      seed,
      force: values.force,
    })
    if (values.json) writeJson({ path: positionals[0], ...made })
    else process.stdout.write(`wrote ${positionals[0]} (${FILE_FORMATS.find((f) => f.id === made.format)?.name ?? made.format}): ${made.vertices} vertices, ${made.edges} edges, ${made.bytes} bytes\n`)
    return 0
  },
}
