// What the command line promises beyond each workload: group help, quiet GPU discovery, readable
// tables (f32 deviations, "1 row"), and progress on stderr when it is not a terminal.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { deviceSelectLayer } from '../../src/main/gpu/device-select'
import { CLI } from '../helpers/serve'
import { landslideWorkload } from '../../src/shared/workloads/landslide'
import { recordedParams } from '../../src/shared/workloads/schema'

const dir = mkdtempSync(join(tmpdir(), 'paralab-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const paralab = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('paralab conventions', () => {
  it('command groups have help that exits 0', () => {
    for (const group of ['generate', 'bench']) {
      const r = paralab([group, '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^Usage: paralab ${group} <`))
    }
    expect(paralab(['generate']).code).toBe(2)
  })

  it('takes files with roles as flags (paralab landslide --header --dem --source), the same run as arguments, and refuses both at once', () => {
    const data = join(__dirname, '../../../shared/data/landslide')
    const [header, dem, source] = ['header', 'dem', 'source'].map((f) => join(data, `tessina_${f}.txt`))
    const md5 = (r: { code: number | null; stdout: string; stderr: string }) => {
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout).results.reference.md5
    }
    const common = ['--steps', '1', '--backend', 'serial', '--json']
    const byFlags = md5(paralab(['landslide', '--dem', dem, '--source', source, '--header', header, ...common]))
    expect(byFlags).toBe(md5(paralab(['landslide', header, dem, source, ...common])))
    const both = paralab(['landslide', '--dem', dem, '--source', source, header, ...common])
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/either as arguments or as --header, --dem, --source, not both/)
    expect(paralab(['landslide', '--help']).stdout).toMatch(/paralab landslide --header FILE --dem FILE --source FILE \[options\]/)
  })

  it('paralab landslide --output and --asc write the reference run\'s final grid (the md5 it reports), refusing a target that exists before any work', () => {
    const data = join(__dirname, '../../../shared/data/landslide')
    const [header, dem, source] = ['header', 'dem', 'source'].map((f) => join(data, `tessina_${f}.txt`))
    const output = join(dir, 'h.txt')
    const asc = join(dir, 'h.asc')
    const r = paralab(['landslide', '--dem', dem, '--source', source, '--header', header, '--steps', '3', '--output', output, '--asc', asc, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const md5 = JSON.parse(r.stdout).results.reference.md5
    expect(createHash('md5').update(readFileSync(output)).digest('hex')).toBe(md5)
    expect(readFileSync(asc, 'utf8')).toMatch(/^ncols\s+496\nnrows\s+610\n/)
    const again = paralab(['landslide', '--dem', dem, '--source', source, '--header', header, '--steps', '3', '--output', output])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`${output} exists (use --force to overwrite)`)
    expect(again.stderr).not.toMatch(/simulating/)
  })

  it('finding the GPU prints no driver chatter, with Mesa\'s Vulkan drivers installed and no desktop session', () => {
    // Mesa's device-select layer (.ci/run installs mesa-vulkan-drivers) asks Wayland for the default
    // GPU, which complains without XDG_RUNTIME_DIR; Dawn rejects Mesa's CPU driver aloud; the
    // loader complains when Mesa's GPU drivers find no GPU.
    expect(deviceSelectLayer(), 'Mesa\'s device-select layer (Debian package mesa-vulkan-drivers) is needed for this test').not.toBeNull()
    const r = paralab(['device'], { XDG_RUNTIME_DIR: undefined })
    expect(r.code).toBe(0)
    expect(r.stderr).not.toMatch(/vkCreateInstance|Warning:|VK_ERROR|XDG_RUNTIME_DIR|Loader Message/)
  })

  it('says "1 row" and shows f32 results with their deviation from f64', () => {
    const file = join(dir, 'one.csv')
    writeFileSync(file, 'acc_x\n0.1\n')
    const r = paralab(['stats', file, '--backend', 'serial', '--precision', 'f32', '--repeat', '1'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`${file}: 1 row,`)
    expect(r.stdout).toMatch(/ΔCV rel acc_x\s+Δmedian acc_x\s+ΔMAD acc_x/)
    // 0.1 is not an f32: its f32 median lies about 1.5e-9 from the f64 one.
    expect(r.stdout).toMatch(/f32 .* 1\.49\d*e-9/)
  })

  it('without a terminal, progress is one line per phase, or NDJSON with --progress json', () => {
    const file = join(dir, 'p.csv')
    writeFileSync(file, 'acc_x,acc_y\n' + Array.from({ length: 2000 }, (_, i) => `${i},${-i}`).join('\n') + '\n')
    const lines = paralab(['stats', file, '--backend', 'serial,simd', '--repeat', '2']).stderr.trim().split('\n')
    expect(lines.some((l) => /^paralab: +\d+%  loading p\.csv/.test(l))).toBe(true)
    expect(lines.filter((l) => /serial f64/.test(l))).toHaveLength(1)
    expect(lines.filter((l) => /simd f64/.test(l))).toHaveLength(1)
    // The log ends with a line that says the run is done, said once; no line before it reads 100 %.
    expect(lines.at(-1)).toMatch(/^paralab: 100%  done in \d+\.\d s$/)
    expect(lines.filter((l) => /done/.test(l))).toHaveLength(1)
    expect(lines.filter((l) => l.startsWith('paralab: 100%'))).toHaveLength(1)
    const events = paralab(['stats', file, '--backend', 'serial', '--repeat', '3', '--progress', 'json']).stderr.trim().split('\n').map((l) => JSON.parse(l))
    expect(events.length).toBeGreaterThan(2)
    const done = events.pop()
    for (const e of events) expect(e).toMatchObject({ type: 'progress', workload: 'stats', phase: expect.any(String), fraction: expect.any(Number), elapsed_ms: expect.any(Number) })
    expect(events.at(-1).fraction).toBe(1)
    expect(done).toEqual({ type: 'done', elapsed_ms: expect.any(Number) })
    expect(paralab(['stats', file, '--progress', 'bars']).code).toBe(2)
  })
})

describe('one grammar', () => {
  it('a CPU-only run records no GPU parameters; a run with the GPU records them', () => {
    const cpu = paralab(['landslide', '--example', '--backend', 'serial,workers', '--steps', '2', '--json'])
    expect(cpu.code, cpu.stderr).toBe(0)
    const params = JSON.parse(cpu.stdout).params
    for (const gpuOnly of ['variants', 'precision', 'gpuBands', 'exchangeEvery', 'stepsPerSubmit', 'warmup']) expect(params, gpuOnly).not.toHaveProperty(gpuOnly)
    expect(params).toMatchObject({ backends: ['serial', 'workers'], ranks: 2, steps: 2 })
    expect(recordedParams(landslideWorkload.params, { ...params, backends: ['serial', 'gpu'], variants: ['fused'], precision: 'f32' })).toMatchObject({ variants: ['fused'], precision: 'f32' })
    const serial = paralab(['landslide', '--example', '--backend', 'serial', '--steps', '2', '--json'])
    expect(JSON.parse(serial.stdout).params).not.toHaveProperty('ranks')
  })

  it('every option\'s help starts in one column, in every command', () => {
    const overview = paralab(['--help']).stdout
    const names = [...overview.matchAll(/^  ([a-z]+(?: [a-z]+)?) {2,}/gm)].map((m) => m[1])
    expect(names.length).toBeGreaterThan(10)
    for (const name of names) {
      const help = paralab([...name.split(' '), '--help'])
      expect(help.code, name).toBe(0)
      // Every line of an option or argument (`  --flag ARG`, `  <graph>`, `  DIR`) has its text after a gap of
      // two spaces or more, in one column; a name too long for it stands alone, its text on the next lines.
      const lines = help.stdout.split('\n').slice(help.stdout.split('\n').findIndex((l) => l.startsWith('Usage:')) + 1)
      const columns = new Set(
        lines.flatMap((l, i): (number | string)[] => {
          if (!/^  \S/.test(l)) return []
          const m = /^  (\S+(?: \S+)*?)( {2,})\S/.exec(l)
          if (m) return [m[1].length + m[2].length]
          return /^ {4,}\S/.test(lines[i + 1] ?? '') ? [] : [`no gap: ${l}`]
        }),
      )
      expect([...columns], name).toHaveLength(1)
    }
  })

  it('--batches prints each prefix\'s time and statistics on the terminal', () => {
    const file = join(dir, 'b.csv')
    writeFileSync(file, 'acc_x\n' + Array.from({ length: 1000 }, (_, i) => `${(i * 7) % 13}`).join('\n') + '\n')
    const r = paralab(['stats', file, '--backend', 'serial,simd', '--repeat', '1', '--batches', '4'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Prefixes (--batches 4): compute ms per backend; CV and MAD by serial')
    const rows = r.stdout.split('Prefixes')[1].split('\n\n')[0].trim().split('\n').slice(2)
    expect(rows.map((l) => l.split(/ +/)[0])).toEqual(['250', '500', '750', '1000'])
  })

  it('every generator makes the folders above its files, as --out does, and names the file when a file stands in the way', () => {
    const base = join(dir, 'generated')
    const cases: [string[], string[]][] = [
      [['generate', 'acc', join(base, 'a/acc.csv'), '--rows', '10'], [join(base, 'a/acc.csv')]],
      [['generate', 'walks', join(base, 'w/x/w.npy'), '--series', '3', '--length', '5'], [join(base, 'w/x/w.npy')]],
      [['generate', 'graph', join(base, 'g/g.mtx'), '--vertices', '5', '--edges', '6'], [join(base, 'g/g.mtx')]],
      [['generate', 'slope', join(base, 's/dem.tif'), join(base, 's2/src.tif')], [join(base, 's/dem.tif'), join(base, 's2/src.tif')]],
    ]
    for (const [args, files] of cases) {
      const r = paralab(args)
      expect(r.code, r.stderr).toBe(0)
      for (const f of files) expect(readFileSync(f).length).toBeGreaterThan(0)
    }
    writeFileSync(join(base, 'plain'), 'x')
    const blocked = paralab(['generate', 'acc', join(base, 'plain/sub/acc.csv'), '--rows', '10'])
    expect(blocked.code).toBe(1)
    expect(blocked.stderr).toContain(`cannot write ${join(base, 'plain/sub/acc.csv')}: a file stands where a folder above it should be`)
    expect(blocked.stderr).not.toMatch(/\.tmp/)
  })
})
