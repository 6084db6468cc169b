// The study's serial program in C (bench/sciddicat.c), built with this machine's C compiler: its
// output has the md5 of the `serial` backend's on a small grid whose debris runs into walls, on the
// study's toy grid and on Tessina; a missing or failing compiler is said plainly; and
// `bench landslide --baseline c` prints the ratio with both md5s.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildC, type CBuild, disposeC, findCompiler, runC, runSerial, writeStudyFiles } from '../../src/main/workloads/landslide/c-baseline'
import { syntheticSlope } from '../../src/main/workloads/landslide/example'
import { readLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { CLI } from '../helpers/serve'

const DATA = join(__dirname, '../../../shared/data/landslide')
const study = (name: string) => ['header', 'dem', 'source'].map((f) => join(DATA, `${name}_${f}.txt`))
// The serial backend's md5 after 100 Tessina steps (test/unit/landslide-engine.test.ts).
const TESSINA_MD5_100 = 'f9ded733d6c9e13963e41ea0cc37a7d4'

const dir = mkdtempSync(join(tmpdir(), 'paralab-c-baseline-'))
let build: CBuild
beforeAll(async () => {
  build = await buildC()
}, 120_000)
afterAll(async () => {
  if (build) await disposeC(build)
  rmSync(dir, { recursive: true, force: true })
})

/** The C program's and the serial backend's output md5 after `steps` steps of `files`, and the serial grid. */
async function both(files: string[], steps: number) {
  const input = await readLandslideInput(files, files)
  const folder = mkdtempSync(join(dir, 'grid-'))
  const c = await runC(build, await writeStudyFiles(input, folder), steps)
  const serial = await runSerial(input, steps)
  return { c: c.md5, serial: serial.md5, input }
}

describe('the study\'s program in C', () => {
  it('has the serial backend\'s md5 where debris runs into walls', async () => {
    // A small synthetic slope whose walled quarry stands in the flow's way.
    const slope = syntheticSlope(3, 40, 48)
    const files = [join(dir, 'dem.asc'), join(dir, 'source.asc')]
    writeFileSync(files[0], slope.dem)
    writeFileSync(files[1], slope.source)
    const { c, serial, input } = await both(files, 400)
    expect(input.wallCount).toBeGreaterThan(0)
    expect(c).toBe(serial)
    // Walls really were reached: a cell beside one holds debris in the end.
    const { rows, cols } = input
    const h = await (async () => {
      const { initialState, ThreadSimulation } = await import('../../src/main/workloads/landslide/simulation')
      const sim = new ThreadSimulation(initialState(input), false)
      await sim.advance(400)
      return sim.thickness()
    })()
    let besideWall = 0
    for (let k = cols; k < (rows - 1) * cols; k++) if (!input.walls![k] && h[k] > 0 && (input.walls![k - 1] || input.walls![k + 1] || input.walls![k - cols] || input.walls![k + cols])) besideWall++
    expect(besideWall).toBeGreaterThan(0)
  })

  it('has the serial backend\'s md5 on the study\'s toy grid and on Tessina', async () => {
    const toy = await both(study('test'), 50)
    expect(toy.c).toBe(toy.serial)
    const tessina = await both(study('tessina'), 100)
    expect(tessina.c).toBe(TESSINA_MD5_100)
    expect(tessina.serial).toBe(TESSINA_MD5_100)
  })

  it('says plainly when there is no compiler, or when it fails', async () => {
    expect(findCompiler({ CC: join(dir, 'no-such-cc') })).toBeNull()
    await expect(buildC({ ...process.env, CC: join(dir, 'no-such-cc') })).rejects.toThrow(/--baseline c needs a C compiler .* does not run/)
    // A "compiler" that answers --version but builds nothing: its error is shown, and no folder is left.
    const broken = join(dir, 'broken-cc')
    writeFileSync(broken, '#!/bin/sh\nif [ "$1" = --version ]; then echo broken 1.0; exit 0; fi\necho "sciddicat.c:1: error: no" >&2\nexit 1\n')
    chmodSync(broken, 0o755)
    await expect(buildC({ ...process.env, CC: broken })).rejects.toThrow(/could not build the study's program: sciddicat.c:1: error: no/)
    const cli = spawnSync(process.execPath, [CLI, 'bench', 'landslide', '--baseline', 'c', '--steps', '5', '--repeat', '1'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, CC: join(dir, 'no-such-cc') } })
    expect(cli.status).toBe(1)
    expect(cli.stderr).toMatch(/needs a C compiler/)
  })

  it('bench landslide --baseline c: medians, the ratio and the md5 of both', () => {
    const r = spawnSync(process.execPath, [CLI, 'bench', 'landslide', '--baseline', 'c', '--steps', '20', '--repeat', '2', '--json'], { encoding: 'utf8', timeout: 120_000 })
    expect(r.status, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.baseline.runs.c).toHaveLength(2)
    expect(out.baseline.runs.serial).toHaveLength(2)
    expect(out.baseline.md5_matches).toBe(true)
    expect(out.baseline.ratio.cpu).toBeGreaterThan(0)
    expect(out.baseline.ratio.wall).toBeGreaterThan(0)
    const bad = spawnSync(process.execPath, [CLI, 'bench', 'landslide', '--baseline', 'fortran'], { encoding: 'utf8', timeout: 60_000 })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/--baseline must be c/)
  })
})
