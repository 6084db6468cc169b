// A failing run never ends with exit code 0. Failures raised in worker threads while the command
// is ending once let the process end early, silently, exit code 0, in a few runs of ten: each
// failing command here runs many times, and a single exit 0 fails the test.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from '../helpers/serve'
import { errorLines } from './paralab'

const dir = mkdtempSync(join(tmpdir(), 'paralab-failure-exit-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const RUNS = 30

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Runs `args` RUNS times, two at a time, and returns every outcome. */
async function repeat(args: string[]) {
  const outcomes: Awaited<ReturnType<typeof run>>[] = []
  for (let i = 0; i < RUNS; i += 2) outcomes.push(...(await Promise.all([run(args), run(args)])))
  return outcomes
}

/** Numeric columns s1…s5, "oops" on line 3 and enough lines that every thread of the loader has ranges. */
function badCsv(): string {
  const lines = ['s1,s2,s3,s4,s5', '1,2,3,4,5', '1,2,3,4,oops']
  for (let i = 0; i < 100_000; i++) lines.push(`${i % 7},${i % 11},${-(i % 13)},${i % 17},${i % 19}`)
  const path = join(dir, 'oops.csv')
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

describe('failing runs exit 1 with their message, every time', () => {
  const csv = badCsv()
  const cases: [string, string[], RegExp][] = [
    ['stats --columns s5', ['stats', csv, '--columns', 's5', '--repeat', '1'], /oops\.csv:3:5: column "s5": "oops" is not a number/],
    ['correlation', ['correlation', csv, '--repeat', '1'], /oops\.csv:3:5: column "s5": "oops" is not a number/],
  ]
  for (const [name, args, message] of cases)
    it(`${name}: ${RUNS} runs`, async () => {
      const outcomes = await repeat(args)
      const codes = outcomes.map((o) => o.code)
      expect(codes, `exit codes of ${RUNS} runs`).toEqual(outcomes.map(() => 1))
      for (const o of outcomes) {
        expect(o.stdout).toBe('')
        expect(errorLines(o.stderr).join('\n')).toMatch(message)
      }
    }, 180_000)
})
