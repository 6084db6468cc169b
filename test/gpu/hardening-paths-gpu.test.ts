// Every GPU variant on graphs whose true distances leave int32 (or equal INF): the job refuses them,
// naming the pair, as the CPU backends do (test/e2e/hardening-paths.test.ts); a distance of
// −2147483646 is computed alike by every variant and the serial reference.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import { GPU_VARIANTS } from '../../src/shared/workloads/paths/types'
import { validateParams } from '../../src/shared/workloads/schema'
import { runPathsJob } from '../../src/main/workloads/paths/run-paths'
import { jobContext } from '../helpers/job-context'

vi.setConfig({ testTimeout: 300_000 })

const dir = mkdtempSync(join(tmpdir(), 'paralab-hardening-paths-gpu-'))
afterAll(async () => {
  await resetGpu()
  rmSync(dir, { recursive: true, force: true })
})

const ctx = jobContext({ gpu: getGpu })

function graph(name: string, V: number, arcs: string[]): string {
  const path = join(dir, name)
  writeFileSync(path, `p sp ${V} ${arcs.length}\n${arcs.map((a) => `a ${a}\n`).join('')}`)
  return path
}

const run = (file: string, extra: Record<string, unknown> = {}) =>
  runPathsJob(validateParams('paths', pathsWorkload.params, { files: [file], repeat: 1, backends: ['serial', 'gpu'], variants: [...GPU_VARIANTS], blocks: ['8'], ...extra }), ctx)

describe('GPU variants and distances beyond int32', () => {
  it('refuses −3221225469 from 1 to 4 and 1073741823 from 2 to 1', async () => {
    const down = graph('down.gr', 4, ['1 2 -1073741823', '2 3 -1073741823', '3 4 -1073741823'])
    await expect(run(down)).rejects.toThrow(`${down}: the shortest distance from 1 to 4 is -3221225469, outside the int32 distances`)
    const inf = graph('inf.gr', 2, ['1 2 -1073741823', '2 1 1073741823'])
    await expect(run(inf, { variants: ['baseline', 'tuned'] })).rejects.toThrow('from 2 to 1 is 1073741823')
  })

  it('computes −2147483646 alike on every variant', async () => {
    const low = graph('low.gr', 3, ['1 2 -1073741823', '2 3 -1073741823'])
    const { results } = await run(low, { from: '1', to: '3' })
    const g = results.graphs[0]
    expect(g.query?.length).toBe(-2147483646)
    expect(g.runs).toHaveLength(1 + GPU_VARIANTS.length)
    expect(g.runs.every((r) => r.matches)).toBe(true)
  })
})
