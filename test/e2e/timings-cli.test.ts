// `--timings` as a user runs it: a table on stderr, a line per stage (process start, the load,
// the backend's engine and compute, writing the results), consistent times, and stdout untouched.
import { describe, expect, it } from 'vitest'
import { resolve } from 'node:path'
import { errorLines, jsonOf, paralab } from './paralab'

const SAMPLE = resolve(__dirname, '../../../shared/data/accelerometer/ACC_016_head.csv')

/** The table's rows by stage: [from, to, busy, beside load?]. */
function table(stderr: string): Map<string, number[]> {
  const lines = errorLines(stderr)
  const head = lines.findIndex((l) => l.startsWith('Timings ('))
  expect(head, stderr).toBeGreaterThanOrEqual(0)
  const rows = new Map<string, number[]>()
  for (const line of lines.slice(head + 2)) {
    const cells = line.trim().split(/\s{2,}/)
    if (cells.length < 4) break
    rows.set(cells[0], cells.slice(1).map(Number))
  }
  return rows
}

describe('paralab … --timings', () => {
  it('prints where the time went, stage by stage, beside the --json envelope', () => {
    const r = paralab(['stats', SAMPLE, '--backend', 'workers-simd', '--repeat', '2', '--timings', '--json'])
    const env = jsonOf(r)
    expect(env.results.files[0].rows).toBe(100)
    const rows = table(r.stderr)
    const stages = [...rows.keys()]
    for (const s of ['process start and modules', 'load ACC_016_head.csv', 'workers-simd: starting its engine (threads, WebAssembly)', 'result writing', 'whole process, so far']) expect(stages).toContain(s)
    // Two repeats of three columns, a column at a time.
    const compute = 'workers-simd f64: compute (6)'
    expect(stages).toContain(compute)
    // The threads start while the file loads.
    expect(rows.get('workers-simd: starting its engine (threads, WebAssembly)')![0]).toBeLessThan(rows.get('load ACC_016_head.csv')![1])
    expect(stages.indexOf('process start and modules')).toBeLessThan(stages.indexOf('load ACC_016_head.csv'))
    const whole = rows.get('whole process, so far')!
    for (const [stage, [from, to, busy]] of rows) {
      expect(from, stage).toBeLessThanOrEqual(to)
      expect(busy, stage).toBeLessThanOrEqual(to - from + 1)
      expect(to, stage).toBeLessThanOrEqual(whole[1])
    }
    // The compute follows the load; the load's own line has no "beside load".
    expect(rows.get(compute)![0]).toBeGreaterThanOrEqual(rows.get('load ACC_016_head.csv')![1] - 1)
    expect(rows.get('load ACC_016_head.csv')).toHaveLength(3)
  })

  it('prints nothing of the kind without the flag', () => {
    const r = paralab(['stats', SAMPLE, '--backend', 'serial', '--repeat', '1'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain('Timings (')
  })
})
