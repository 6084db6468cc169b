// Cancelling keeps what finished in every workload: a landslide cancelled within its only run keeps
// the steps up to its last sample — the very grid a run of that many steps computes.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from '../helpers/serve'
import { jsonOf, paralab } from './paralab'

const dir = mkdtempSync(join(tmpdir(), 'paralab-cancel-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const env = { ...process.env, PARALAB_EXAMPLES: join(dir, 'examples') }

/** Runs paralab, interrupts it (SIGINT) once a progress event passes `fraction` in a phase matching `phase`. */
async function interrupted(args: string[], phase: RegExp, fraction: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args, '--progress', 'json'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let sent = false
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => {
    stderr += d
    for (const line of stderr.split('\n')) {
      if (sent || !line.startsWith('{')) continue
      const e = JSON.parse(line)
      if (phase.test(e.phase ?? '') && e.fraction > fraction) {
        sent = true
        child.kill('SIGINT')
      }
    }
  })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { code, stdout, stderr }
}

describe('a landslide cancelled within its only run', () => {
  it('keeps the steps up to its last sample, marked partial, with the md5 of a run of that many steps', async () => {
    const r = await interrupted(['landslide', '--example', '--backend', 'serial', '--steps', '200000', '--frames', '20', '--json'], /simulating serial/, 0.002)
    expect(r.code, r.stderr).toBe(130)
    const envelope = JSON.parse(r.stdout)
    expect(envelope.partial).toBe(true)
    expect(envelope.params.steps).toBe(200000)
    const steps = envelope.results.steps
    expect(envelope.missing).toEqual([`steps ${steps + 1}–200000`])
    expect(steps).toBeGreaterThan(0)
    expect(steps).toBeLessThan(200000)
    // 20 steps between samples is finer than MAX_SAMPLES allows over 200 000 steps: the run says the stride it took.
    const every = envelope.results.sampling.every
    expect(every).toBe(50)
    expect(envelope.results.sampling.asked).toBe(20)
    expect(steps % every).toBe(0)
    expect(envelope.results.series.step.at(-1)).toBe(steps)
    expect(envelope.results.runs.serial.ms_per_step).toBeGreaterThan(0)
    const again = jsonOf(paralab(['landslide', '--example', '--backend', 'serial', '--steps', String(steps), '--json'], env))
    expect(envelope.results.reference.md5).toBe(again.results.reference.md5)
    expect(envelope.results.runs.serial.md5).toBe(again.results.runs.serial.md5)
  })

  it('on the terminal says how many of the steps asked for it computed', async () => {
    const r = await interrupted(['landslide', '--example', '--backend', 'serial', '--steps', '200000', '--frames', '20'], /simulating serial/, 0.002)
    expect(r.code, r.stderr).toBe(130)
    expect(r.stdout).toMatch(/^\d+ steps \(cancelled: \d+ of the 200000 asked for\); reference serial/m)
    expect(r.stderr).toContain('paralab: cancelled; the results above are what had finished')
  })
})
