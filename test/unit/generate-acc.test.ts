// The synthetic accelerometer files: layout of the dataset, determinism, atomic writes.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateAccCsv } from '../../src/main/workloads/stats/generate-acc'
import { loadCsv } from '../../src/main/io/csv-loader'
import { failure } from '../helpers/failure'

const dir = mkdtempSync(join(tmpdir(), 'paralab-gen-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ROW = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}),(-?\d+\.0),(-?\d+\.0),(-?\d+\.0)$/

/** Microseconds since the epoch of a `YYYY-MM-DD HH:MM:SS.ffffff` stamp, from a ROW match. */
function micros(m: RegExpMatchArray): number {
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number)
  return Date.UTC(y, mo - 1, d, h, mi, s) * 1000 + Number(m[7])
}

describe('generateAccCsv', () => {
  it('writes the dataset’s layout: header, 32 Hz stamps, integer counts with one decimal', async () => {
    const path = join(dir, 'layout.csv')
    const rows = 32 * 60 * 3 + 17 // three minutes and a bit: stamps roll over seconds and minutes
    const result = await generateAccCsv(path, { rows, seed: 3, blockRows: 1000 })
    const text = readFileSync(path, 'latin1')
    expect(result).toEqual({ rows, bytes: statSync(path).size })
    const lines = text.split('\n')
    expect(lines.pop()).toBe('') // ends with a newline
    expect(lines[0]).toBe('datetime, acc_x, acc_y, acc_z')
    expect(lines.length).toBe(rows + 1)
    expect(lines[1].startsWith('2020-02-13 15:28:50.000000,')).toBe(true)

    // The dataset sample has the same row shape.
    const sample = readFileSync(resolve('../shared/data/accelerometer/ACC_016_head.csv'), 'latin1').split('\n')
    expect(sample[1]).toMatch(ROW)

    const sums = [0, 0, 0]
    const squares = [0, 0, 0]
    const wrong: string[] = []
    let previous = -1
    for (const line of lines.slice(1)) {
      const m = line.match(ROW)
      if (!m) {
        wrong.push(`row ${JSON.stringify(line)} does not have the dataset's layout`)
        continue
      }
      const t = micros(m)
      if (previous >= 0 && t - previous !== 31_250) wrong.push(`${m[0]}: ${t - previous} µs after the previous row`)
      previous = t
      for (let a = 0; a < 3; a++) {
        const v = Number(m[8 + a])
        if (v < -128 || v > 127 || m[8 + a] === '-0.0') wrong.push(`${m[0]}: count ${m[8 + a]}`)
        sums[a] += v
        squares[a] += v * v
      }
    }
    expect(wrong.slice(0, 5)).toEqual([])
    // Means near the dataset's (x ~ -30, y ~ 10, z ~ 45), and values that really vary.
    const means = sums.map((s) => s / rows)
    ;[-30, 10, 45].forEach((target, a) => expect(Math.abs(means[a] - target)).toBeLessThan(20))
    squares.forEach((q, a) => expect(Math.sqrt(q / rows - means[a] ** 2)).toBeGreaterThan(1))
  })

  it('is deterministic for a seed and differs between seeds', async () => {
    const a = join(dir, 'seed-a.csv')
    const b = join(dir, 'seed-b.csv')
    const c = join(dir, 'seed-c.csv')
    await generateAccCsv(a, { rows: 5000, seed: 42 })
    await generateAccCsv(b, { rows: 5000, seed: 42, blockRows: 333 })
    await generateAccCsv(c, { rows: 5000, seed: 43 })
    expect(readFileSync(b).equals(readFileSync(a))).toBe(true)
    expect(readFileSync(c).equals(readFileSync(a))).toBe(false)
  })

  it('loads back with the CSV loader', async () => {
    const path = join(dir, 'roundtrip.csv')
    await generateAccCsv(path, { rows: 4000, seed: 5 })
    const t = await loadCsv(path, { columns: ['acc_x', 'acc_y', 'acc_z'], threads: 2, rangeBytes: 8192 })
    expect(t.rows).toBe(4000)
    const rows = readFileSync(path, 'latin1').trimEnd().split('\n').slice(1)
    ;['acc_x', 'acc_y', 'acc_z'].forEach((col, a) => {
      expect(t.columns[col].missing).toBe(0)
      expect(Array.from(t.columns[col].values)).toEqual(rows.map((r) => Number(r.split(',')[1 + a])))
    })
  })

  it('refuses to overwrite a file unless forced', async () => {
    const path = join(dir, 'exists.csv')
    writeFileSync(path, 'keep me')
    const e = await failure(generateAccCsv(path, { rows: 10 }))
    expect(e.code).toBe('invalid-argument')
    expect(e.message).toContain(path)
    expect(readFileSync(path, 'utf8')).toBe('keep me')
    await generateAccCsv(path, { rows: 10, force: true })
    expect(readFileSync(path, 'latin1').split('\n').length).toBe(12)
  })

  it('leaves neither the file nor a temporary one when cancelled', async () => {
    const sub = mkdtempSync(join(dir, 'cancel-'))
    const path = join(sub, 'big.csv')
    const ac = new AbortController()
    let reports = 0
    const e = await failure(
      generateAccCsv(path, {
        rows: 100_000,
        blockRows: 1000,
        signal: ac.signal,
        progress: (p) => {
          expect(p.total).toBe(100_000)
          if (++reports === 3) ac.abort()
        },
      }),
    )
    expect(e.code).toBe('cancelled')
    expect(reports).toBe(3)
    expect(existsSync(path)).toBe(false)
    expect(readdirSync(sub)).toEqual([])
  })

  it('rejects a row count that is not a positive integer', async () => {
    for (const rows of [0, -5, 1.5, NaN]) {
      const e = await failure(generateAccCsv(join(dir, 'bad.csv'), { rows }))
      expect(e.code).toBe('invalid-argument')
    }
    expect(existsSync(join(dir, 'bad.csv'))).toBe(false)
  })
})
