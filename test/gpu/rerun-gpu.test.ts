// `paralab rerun` of a run with an f32 GPU kernel (on the software adapter): the re-run agrees, its
// f32 row held to the f32 bound rather than to the bit (its deviation from f64 is not a result), and
// a GPU value moved within the bound still agrees while one moved beyond it is named.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { F32_BOUND } from '../../src/shared/workloads/agreement'
import { jsonOf, paralab } from '../e2e/paralab'

const dir = mkdtempSync(join(tmpdir(), 'paralab-rerun-gpu-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const run = (args: string[]) => paralab(args, {}, 180_000, dir)

function edited(name: string, edit: (e: any) => void): string {
  const e = JSON.parse(readFileSync(at('landslide/results.json'), 'utf8'))
  edit(e)
  writeFileSync(at(name), JSON.stringify(e))
  return at(name)
}

describe('rerun of a landslide run with an f32 GPU kernel', () => {
  beforeAll(() => {
    expect(run(['generate', 'slope', 'dem.asc', 'source.asc', '--rows', '16', '--cols', '20', '--seed', '3']).code).toBe(0)
    expect(run(['landslide', 'dem.asc', 'source.asc', '--backend', 'serial,gpu', '--variant', 'fused', '--steps', '20', '--repeat', '1', '--out', 'landslide']).code).toBe(0)
  }, 120_000)

  it('agrees with itself, on the same device', () => {
    const r = jsonOf(run(['rerun', 'landslide/results.json', '--json']))
    expect([r.agree, r.differences, r.machine]).toEqual([true, [], []])
    expect(r.envelope.results.runs['gpu/fused'].precision).toBe('f32')
    expect(r.envelope.device.adapter).toBe(JSON.parse(readFileSync(at('landslide/results.json'), 'utf8')).device.adapter)
  })

  it('a GPU value moved within the f32 bound agrees; moved beyond it, it is named with its row', () => {
    const nudge = (by: number) => (e: any) => (e.results.runs['gpu/fused'].mass_end *= 1 + by)
    const within = jsonOf(run(['rerun', edited('within.json', nudge(F32_BOUND.relative / 10)), '--json']))
    expect([within.agree, within.bounded]).toEqual([true, 1])
    const beyond = run(['rerun', edited('beyond.json', nudge(F32_BOUND.relative * 10)), '--json'])
    expect(beyond.code).toBe(1)
    expect(JSON.parse(beyond.stdout).differences).toEqual([expect.stringMatching(/^table runs, row \d+ \(run gpu\/fused, backend gpu, variant fused, precision f32\), column mass_end: .* \(beyond the f32 bound/)])
  })
})
