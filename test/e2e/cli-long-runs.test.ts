// A long `paralab landslide` as a batch job sees it: with stderr no terminal it prints a progress
// line every interval (PARALAB_PROGRESS_MS here, 10 s by default) with the steps done, the rate and
// the time left; and when its launcher is killed (npm exec's shell orphaned, as `timeout … npx
// paralab` left it) it cancels itself instead of computing on.
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
  it('prints the steps done, the rate and the time left every interval', () => {
    const r = paralab(['landslide', '--example', '--backend', 'active', '--steps', '6000', '--frames', '3000'], { PARALAB_PROGRESS_MS: '250' })
    expect(r.code, r.stderr).toBe(0)
    const periodic = r.stderr.split('\n').filter((l) => /simulating .* so far/.test(l))
    expect(periodic.length, r.stderr).toBeGreaterThanOrEqual(2)
    for (const l of periodic) expect(l).toMatch(/^paralab: +\d+%  simulating active · step \d+ of 6000  [\d.]+ M cell-steps\/s  \d+:\d\d so far(, about \d+:\d\d left)?$/)
    expect(periodic.some((l) => / left$/.test(l))).toBe(true)
    // The steps said grow from line to line.
    const steps = periodic.map((l) => Number(/step (\d+) of/.exec(l)![1]))
    expect(steps.at(-1)!).toBeGreaterThan(steps[0])
  }, 120_000)
})

describe('a run whose launcher goes away', () => {
  it('cancels itself when the launcher is killed, its shell left behind as npx leaves it', async () => {
    const err = join(dir, 'child.err')
    // launcher (node, as npm exec) → sh -c (as npx runs the bin) → paralab; the launcher is a group of its own, as timeout makes one.
    const launcher = spawn(
      process.execPath,
      [
        '-e',
        `const { spawn } = require('node:child_process')
const sh = spawn('sh', ['-c', 'exec 2>' + process.argv[2] + '; ' + JSON.stringify(process.execPath) + ' ' + process.argv[1] + ' landslide --example --backend active --steps 1000000 --frames 100000 >/dev/null & echo $!; wait'], { stdio: ['ignore', 'inherit', 'inherit'] })
setInterval(() => {}, 1000)`,
        CLI,
        err,
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    const pid = Number(await new Promise<string>((resolve) => launcher.stdout!.once('data', (d) => resolve(String(d).trim()))))
    expect(pid).toBeGreaterThan(1)
    try {
      // Running: simulating, well before its million steps.
      for (let i = 0; i < 200 && !/simulating active/.test(readFileSync(err, 'utf8')); i++) await sleep(100)
      expect(readFileSync(err, 'utf8')).toMatch(/simulating active/)
      process.kill(launcher.pid!, 'SIGKILL')
      const killed = Date.now()
      while (alive(pid) && Date.now() - killed < 20_000) await sleep(100)
      expect(alive(pid)).toBe(false)
      const stderr = readFileSync(err, 'utf8')
      expect(stderr).toMatch(/paralab: its launcher sh \(pid \d+\) lost its own parent \(pid \d+\): cancelling/)
      expect(stderr).toContain('paralab: cancelled')
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL')
      try {
        process.kill(-launcher.pid!, 'SIGKILL')
      } catch {}
    }
  }, 60_000)
})
