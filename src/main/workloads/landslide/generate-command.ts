// `paralab generate slope`: the example's synthetic slope (a DEM with a walled quarry and a debris
// source) at any size and seed, each grid as an ESRI ASCII grid or a GeoTIFF by its name, so that
// tests and new users have landslide inputs in either format.
import { intOption, UsageError, writeJson, type Command, makeParents } from '../../terminal/command'

export const generateSlopeCommand: Command = {
  name: 'generate slope',
  summary: 'Write a synthetic slope for the landslide: a DEM and a debris source, each as .asc or GeoTIFF (.tif).',
  usage: 'paralab generate slope <dem.asc|dem.tif> <source.asc|source.tif> [--rows N] [--cols N] [--seed S] [--force] [--json]',
  help: [
    '  <dem> <source>  the files to write; a name ending in .tif or .tiff is written as a float64 GeoTIFF',
    '                  (walls NODATA -9999, no CRS), any other as an ESRI ASCII grid',
    '  --rows N        rows (default 120, as the example)',
    '  --cols N        columns (default 160)',
    '  --seed S        seed of the generator (default 1); the same seed gives the same grids in either format',
    '  --force         replace files that exist',
    '  --json          print {"dem","source","rows","cols"} on stdout',
  ].join('\n'),
  options: { rows: { type: 'string' }, cols: { type: 'string' }, seed: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 2) throw new UsageError('generate slope needs two output files: the DEM and the source')
    const { writeSlope } = await import('./generate-slope')
    const rows = intOption(values.rows, 'rows', 8, 20_000) ?? 120
    const cols = intOption(values.cols, 'cols', 8, 20_000) ?? 160
    const seed = intOption(values.seed, 'seed', 0, 2 ** 32 - 1) ?? 1
    await makeParents(positionals)
    const made = await writeSlope(positionals[0], positionals[1], {
      rows,
      cols,
      seed,
      force: !!values.force,
    })
    if (values.json) writeJson(made)
    else process.stdout.write(`wrote ${made.dem} and ${made.source}: ${made.rows} × ${made.cols} cells\n`)
    return 0
  },
}
