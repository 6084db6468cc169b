// Batch runs over folders with the built CLI: a bad file is reported and the others' results,
// charts and tables are all written; --fail-fast stops at it; an unavailable GPU is skipped when
// other backends run; --out is checked before any work; Ctrl-C prints the finished backends.
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI } from '../helpers/serve'

const dir = mkdtempSync(join(tmpdir(), 'paralab-batch-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const env = { ...process.env, PARALAB_EXAMPLES: join(dir, 'examples') }
const paralab = (args: string[], extra: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...env, ...extra } })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A small accelerometer CSV: `rows` lines of integers. */
function accCsv(rows: number, seed: number): string {
  let s = seed
  const next = () => ((s = (s * 1103515245 + 12345) % 2147483648), (s % 2001) - 1000)
  const lines = ['datetime,acc_x,acc_y,acc_z']
  for (let i = 0; i < rows; i++) lines.push(`2020-01-01 00:00:${String(i % 60).padStart(2, '0')},${next()},${next()},${next()}`)
  return lines.join('\n') + '\n'
}

const folder = join(dir, 'data')
beforeAll(() => {
  mkdirSync(folder)
  writeFileSync(join(folder, 'a.csv'), accCsv(300, 1))
  // UTF-16: a file a spreadsheet saved in the wrong encoding.
  writeFileSync(join(folder, 'b.csv'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('acc_x\n1\n', 'utf16le')]))
  writeFileSync(join(folder, 'c.csv'), accCsv(500, 2))
})

describe('a folder with one bad file', () => {
  it('analyses the good files, writes all their outputs, lists the failure and exits 1', () => {
    const out = join(dir, 'out-batch')
    const r = paralab(['stats', folder, '--backend', 'serial', '--repeat', '1', '--json', '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`paralab: ${join(folder, 'b.csv')}: is UTF-16 text`)
    const envelope = JSON.parse(r.stdout)
    expect(envelope.results.files.map((f: { path: string }) => f.path)).toEqual([join(folder, 'a.csv'), join(folder, 'c.csv')])
    expect(envelope.results.failed).toEqual([{ path: join(folder, 'b.csv'), error: { code: 'invalid-input', message: expect.stringContaining('UTF-16') } }])
    expect(readdirSync(out).sort()).toEqual(
      ['a-cv', 'a-mad', 'a-time', 'c-cv', 'c-mad', 'c-time'].flatMap((c) => [`${c}.png`, `${c}.svg`]).concat(['files.csv', 'files.parquet', 'results.csv', 'results.json', 'results.parquet']).sort(),
    )
    expect(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).results.failed).toHaveLength(1)
    const statuses = readFileSync(join(out, 'files.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 2).join(','))
    expect(statuses).toEqual([`${join(folder, 'a.csv')},ok`, `${join(folder, 'c.csv')},ok`, `${join(folder, 'b.csv')},failed`])
  })

  it('--fail-fast stops at the bad file and writes nothing', () => {
    const out = join(dir, 'out-fail-fast')
    const r = paralab(['stats', folder, '--backend', 'serial', '--repeat', '1', '--fail-fast', '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('b.csv: is UTF-16 text')
    expect(r.stdout).toBe('')
    expect(existsSync(out)).toBe(false)
  })
})

describe('a run in which no file succeeded', () => {
  it.each([
    ['stats, one bad file', ['stats', 'b.csv'], 'b.csv: is UTF-16 text'],
    ['stats, only bad files', ['stats', 'b.csv', 'b2.csv'], 'none of the 2 files could be analysed'],
    ['correlation', ['correlation', 'b.csv'], 'b.csv'],
    ['paths', ['paths', 'bad.bin'], 'bad.bin: 4 bytes'],
    ['landslide', ['landslide', 'bad.asc', 'bad.asc'], 'bad.asc'],
  ])('%s: exits 1 with its message and writes no result set', (_what, [command, ...inputs], message) => {
    writeFileSync(join(dir, 'bad.bin'), 'abcd')
    writeFileSync(join(dir, 'bad.asc'), 'ncols 2\nnrows 2\n')
    copyFileSync(join(folder, 'b.csv'), join(dir, 'b.csv'))
    copyFileSync(join(folder, 'b.csv'), join(dir, 'b2.csv'))
    const out = join(dir, `out-none-${command}-${inputs.length}`)
    const r = paralab([command, ...inputs.map((f) => join(dir, f)), '--out', out])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toContain(message)
    expect(existsSync(out)).toBe(false)
  })
})

describe('--backend all without a GPU', () => {
  it('runs the other backends and reports the GPU as skipped, with the reason', () => {
    const r = paralab(['stats', join(folder, 'a.csv'), '--backend', 'all', '--repeat', '1', '--json'], { PARALAB_GPU: 'off' })
    expect(r.code, r.stderr).toBe(0)
    const envelope = JSON.parse(r.stdout)
    expect(Object.keys(envelope.results.files[0].backends)).toEqual(['serial', 'simd', 'workers', 'workers-simd'])
    expect(envelope.results.skipped).toEqual([{ backend: 'gpu', reason: expect.stringContaining('PARALAB_GPU=off') }])
    expect(envelope.device).toBeUndefined()
  })

  it('--backend gpu alone still fails, saying why', () => {
    const r = paralab(['stats', join(folder, 'a.csv'), '--backend', 'gpu'], { PARALAB_GPU: 'off' })
    expect(r.code).toBe(1)
    // The backend cannot run, not the file: the message blames no file.
    expect(r.stderr.trim().split('\n').at(-1)).toBe('paralab: --backend gpu cannot run: disabled by PARALAB_GPU=off')
  })
})

describe('--out is checked before any work', () => {
  it.each([
    ['an existing folder without --force', () => mkdirSync(join(dir, 'taken'), { recursive: true }), join(dir, 'taken'), [], 'exists (use --force to replace it)'],
    ['a file as parent', () => writeFileSync(join(dir, 'plain'), 'x'), join(dir, 'plain', 'out'), [], 'plain is a file, not a folder'],
    ['a file above the parent', () => writeFileSync(join(dir, 'flat'), 'x'), join(dir, 'flat', 'runs', 'out'), [], 'flat is a file, not a folder'],
    ['--force on a folder that is no result set', () => mkdirSync(join(dir, 'mine'), { recursive: true }), join(dir, 'mine'), ['--force'], 'is not a Paralab result folder'],
  ])('refuses %s at once', (_what, make, out, extra, message) => {
    make()
    // The input does not exist: an error about it would mean the run had started.
    const r = paralab(['stats', join(dir, 'missing.csv'), '--out', out, ...extra])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(message)
  })

  it('makes the folders above it that do not exist yet', () => {
    const out = join(dir, 'runs', 'today', 'acc')
    const r = paralab(['stats', join(folder, 'a.csv'), '--backend', 'serial', '--repeat', '1', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(existsSync(join(out, 'results.json'))).toBe(true)
  })

  it('--force replaces an earlier result set whole', () => {
    const out = join(dir, 'out-replace')
    expect(paralab(['stats', join(folder, 'a.csv'), '--backend', 'serial', '--repeat', '1', '--out', out]).code).toBe(0)
    expect(existsSync(join(out, 'a-time.svg'))).toBe(true)
    expect(paralab(['stats', join(folder, 'c.csv'), '--backend', 'serial', '--repeat', '1', '--out', out, '--force']).code).toBe(0)
    expect(existsSync(join(out, 'a-time.svg'))).toBe(false)
    expect(existsSync(join(out, 'c-time.svg'))).toBe(true)
    expect(readdirSync(dir).filter((n) => n.startsWith('.out-replace'))).toEqual([])
  })
})

describe('a run killed while writing', () => {
  it('leaves the complete result set or none, and the next run clears what it left', async () => {
    const input = join(dir, 'kill.csv')
    copyFileSync(join(folder, 'c.csv'), input)
    const expected = ['kill-cv', 'kill-mad', 'kill-time'].flatMap((c) => [`${c}.png`, `${c}.svg`]).concat(['files.csv', 'files.parquet', 'results.csv', 'results.json', 'results.parquet']).sort()
    for (let i = 0; i < 8; i++) {
      const out = join(dir, `killed-${i}`)
      const child = spawn(process.execPath, [CLI, 'stats', input, '--backend', 'serial', '--repeat', '1', '--out', out], { env, stdio: 'ignore' })
      const exited = new Promise((r) => child.once('exit', r))
      // Kill at different moments, from before the first file to after the rename.
      await new Promise((r) => setTimeout(r, 250 + i * 120))
      child.kill('SIGKILL')
      await exited
      if (existsSync(out)) {
        expect(readdirSync(out).sort()).toEqual(expected)
      }
    }
    // Whatever was killed, a new run into the same parent sweeps up the dead runs' temporary folders.
    expect(paralab(['stats', input, '--backend', 'serial', '--repeat', '1', '--out', join(dir, 'killed-0'), '--force']).code).toBe(0)
    expect(readdirSync(dir).filter((n) => /^\.killed-0\./.test(n))).toEqual([])
  })
})

describe('Ctrl-C', () => {
  it('prints the backends that had finished, marked partial, and exits 130', async () => {
    const input = join(dir, 'long.csv')
    writeFileSync(input, accCsv(60_000, 3))
    const child = spawn(process.execPath, [CLI, 'stats', input, '--backend', 'serial,workers', '--repeat', '1000', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const exited = new Promise((r) => child.once('exit', r))
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    // Without a terminal, progress is one line per phase: interrupt once the second backend runs.
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (d) => {
        stderr += d
        if (/workers f64/.test(stderr)) resolve()
      }),
    )
    child.kill('SIGINT')
    const code = await exited
    expect(code).toBe(130)
    const envelope = JSON.parse(stdout)
    expect(envelope.partial).toBe(true)
    expect(envelope.missing).toEqual(['workers'])
    expect(Object.keys(envelope.results.files[0].backends)).toEqual(['serial'])
    expect(stderr).toContain('cancelled')
  })
})
