// What the cluster tests share: input folders made with `paralab generate`, and results compared
// with their times left out (a task's timings are its own).
import { mkdirSync, writeFileSync } from 'node:fs'
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
