// A long `paralab landslide` as a batch job sees it: with stderr no terminal it prints a progress
// line every interval (PARALAB_PROGRESS_MS here, 10 s by default) with the steps done, the rate and
// the time left; and when its launcher is killed (npm exec's shell orphaned, as `timeout … npx
// paralab` left it) it cancels itself instead of computing on, as any other command (serve) stops.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from '../helpers/serve'
import { paralab } from './paralab'

const dir = mkdtempSync(join(tmpdir(), 'paralab-long-runs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a long landslide run without a terminal', () => {
  it('landslide simulate likewise, on the same grids giving the same md5 as the job', () => {
    const example = paralab(['landslide', '--example', '--backend', 'active', '--steps', '3000', '--json'])
    const grids = JSON.parse(example.stdout).results.grid.files
    const r = paralab(['landslide', 'simulate', '--dem', grids.dem, '--source', grids.source, '--steps', '3000', '--json'], { PARALAB_PROGRESS_MS: '200' })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr.split('\n').filter((l) => /^paralab: +\d+%  simulating active · step \d+ of 3000  [\d.]+ M cell-steps\/s  \d+:\d\d so far/.test(l)).length, r.stderr).toBeGreaterThanOrEqual(1)
    expect(r.stderr).toMatch(/paralab: 100%  done in \d+\.\d s\n$/)
    expect(JSON.parse(r.stdout).md5).toBe(JSON.parse(example.stdout).results.reference.md5)
  }, 120_000)

  it('prints the steps done, the rate and the time left every interval', () => {
    // Long enough (a few seconds on a quiet machine) for a time left of a second or more.
    const r = paralab(['landslide', '--example', '--backend', 'active', '--steps', '40000', '--frames', '20000'], { PARALAB_PROGRESS_MS: '250' })
    expect(r.code, r.stderr).toBe(0)
    const periodic = r.stderr.split('\n').filter((l) => /simulating .* so far/.test(l))
    expect(periodic.length, r.stderr).toBeGreaterThanOrEqual(2)
    for (const l of periodic) expect(l).toMatch(/^paralab: +\d+%  simulating active · step \d+ of 40000(  [\d.]+ M cell-steps\/s)?  \d+:\d\d so far(, about \d+:\d\d left)?$/)
    // A rate once a step is done (a line may come before the first).
    for (const l of periodic.filter((l) => !/ step 0 of/.test(l))) expect(l).toMatch(/ M cell-steps\/s /)
    expect(periodic.some((l) => / left$/.test(l))).toBe(true)
    // The steps said grow from line to line.
    const steps = periodic.map((l) => Number(/step (\d+) of/.exec(l)![1]))
    expect(steps.at(-1)!).toBeGreaterThan(steps[0])
  }, 120_000)
})

/**
 * `args` run as npx runs a bin: launcher (node, as npm exec; a process group of its own, as timeout
 * makes one) → sh -c → paralab, its stderr into `err`. Returns the launcher and paralab's pid.
 */
async function launched(args: string, err: string) {
  const launcher = spawn(
    process.execPath,
    [
      '-e',
      `const { spawn } = require('node:child_process')
spawn('sh', ['-c', 'exec 2>' + process.argv[2] + '; ' + JSON.stringify(process.execPath) + ' ' + process.argv[1] + ' ' + process.argv[3] + ' >/dev/null & echo $!; wait'], { stdio: ['ignore', 'inherit', 'inherit'] })
setInterval(() => {}, 1000)`,
      CLI,
      err,
      args,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const pid = Number(await new Promise<string>((resolve) => launcher.stdout!.once('data', (d) => resolve(String(d).trim()))))
  return { launcher, pid }
}

describe('a command whose launcher goes away', () => {
  it.each([
    ['a landslide run', 'landslide --example --backend active --steps 1000000 --frames 100000', /simulating active/, /paralab: cancelled/],
    ['serve', 'serve', /Press Ctrl-C to stop/, null],
  ])('%s stops when the launcher is killed, its shell left behind as npx leaves it', async (_, args, running, after) => {
    const err = join(dir, `${args.split(' ')[0]}.err`)
    const { launcher, pid } = await launched(args, err)
    expect(pid).toBeGreaterThan(1)
    const stderr = () => readFileSync(err, 'utf8')
    try {
      // Working: simulating well before its million steps, or serving.
      for (let i = 0; i < 300 && !running.test(stderr()); i++) await sleep(100)
      expect(stderr()).toMatch(running)
      process.kill(launcher.pid!, 'SIGKILL')
      const killed = Date.now()
      while (alive(pid) && Date.now() - killed < 20_000) await sleep(100)
      expect(alive(pid)).toBe(false)
      expect(stderr()).toMatch(/paralab: its launcher sh \(pid \d+\) lost its own parent \(pid \d+\): stopping as on SIGTERM/)
      if (after) expect(stderr()).toMatch(after)
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL')
      try {
        process.kill(-launcher.pid!, 'SIGKILL')
      } catch {}
    }
  }, 60_000)
})
