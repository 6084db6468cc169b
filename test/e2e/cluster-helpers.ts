// What the cluster tests share: input folders made with `paralab generate`, and results compared
// with their times left out (a task's timings are its own).
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { paralab } from './paralab'

/** `dir`/data: two seeded recordings and a CSV with a word among its numbers. */
export function statsFolder(dir: string): string {
  const data = join(dir, 'data')
  mkdirSync(data, { recursive: true })
  for (const [name, rows, seed] of [['a.csv', 3000, 1], ['b.csv', 2000, 2]] as const)
    expect(paralab(['generate', 'acc', join(data, name), '--rows', String(rows), '--seed', String(seed)]).code).toBe(0)
  writeFileSync(join(data, 'c.csv'), 'acc_x,acc_y,acc_z\n1,2,3\n4,5,oops\n')
  return data
}

/** The value without its times (keys ending in _ms) and the host-specific parts. */
export function timeless(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(timeless)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).filter(([k]) => !k.endsWith('_ms')).map(([k, v]) => [k, timeless(v)]))
  return value
}

/** A merged envelope against the local run's: the same parameters, inputs, results and timing names. */
export function expectSameRun(merged: any, local: any): void {
  expect(merged.workload).toBe(local.workload)
  expect(merged.params).toEqual(local.params)
  expect(merged.input.files.map((f: any) => f.path)).toEqual(local.input.files.map((f: any) => f.path))
  expect(Object.keys(merged.timings).sort()).toEqual(Object.keys(local.timings).sort())
  expect(timeless(merged.results)).toEqual(timeless(local.results))
}

/**
 * File names that would run `touch PWNED` or add a #SBATCH line if a job script pasted them as
 * text: line breaks, $(), backticks, quotes, ;, %, #, a tab, a leading -, non-ASCII (a few names
 * holding several each, so that a job array of them stays small).
 */
export const HOSTILE_NAMES = [
  'evil\ntouch PWNED\n.csv',
  'x\n#SBATCH --nice=777\n#.csv',
  'y\ntouch PWNED\n#.csv',
  `$(touch PWNED) \`touch PWNED\` it's "q";touch PWNED; 100%j %a #h\tx.csv`,
  '-x é ü.csv',
]

/** `dir`/hostile: one small seeded recording under each hostile name. */
export function hostileFolder(dir: string): string {
  const data = join(dir, 'hostile')
  mkdirSync(data, { recursive: true })
  const first = join(data, 'plain.csv')
  expect(paralab(['generate', 'acc', first, '--rows', '500', '--seed', '4']).code).toBe(0)
  for (const name of HOSTILE_NAMES) copyFileSync(first, join(data, name))
  return data
}

/** A job folder's parent whose name is hostile too (spaces, quotes, $(), ;, %, #, a leading -). */
export function hostileRunsFolder(dir: string): string {
  const runs = join(dir, "-runs $(touch PWNED) `touch PWNED` 'q' \"dq\" ; %j %a %% #h")
  mkdirSync(runs, { recursive: true })
  return runs
}

/** Files named PWNED… anywhere under `dirs`: what a hostile name would have made had it run. */
export function pwnedUnder(...dirs: string[]): string[] {
  const found: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('PWNED')) found.push(join(d, e.name))
      if (e.isDirectory()) walk(join(d, e.name))
    }
  }
  for (const d of dirs) walk(d)
  return found
}
