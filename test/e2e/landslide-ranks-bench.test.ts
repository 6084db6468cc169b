// `paralab bench landslide --ranks 1,2`: the job in ranks on each count (the bench's own rank
// processes), medians, efficiency against one rank, exchange time per count, and the reference md5
// from every count; a list of ranks with the workers backends, and --tile with a cluster run, are
// refused. Runs the built CLI (npm run build).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { paralab } from './paralab'

const DATA = join(__dirname, '../../../shared/data/landslide')
const GRIDS = ['--header', join(DATA, 'tessina_header.txt'), '--dem', join(DATA, 'tessina_dem.txt'), '--source', join(DATA, 'tessina_source.txt')]
const MD5_100 = 'f9ded733d6c9e13963e41ea0cc37a7d4'

describe('bench landslide --ranks', () => {
  it('times 1 and 2 ranks of active with the reference md5, efficiency and exchange time', () => {
    const r = paralab(['bench', 'landslide', ...GRIDS, '--steps', '100', '--backend', 'active', '--ranks', '1,2', '--repeat', '2', '--exchange-every', '4', '--rank-timeout', '60', '--json'], { PARALAB_GPU: 'off' })
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({ run: 'active', precision: 'f64', steps: 100, repeat: 2, overlap: false, input: { rows: 610, cols: 496 } })
    expect(out.counts.map((c: { ranks: number }) => c.ranks)).toEqual([1, 2])
    for (const c of out.counts) {
      expect(c.md5).toBe(MD5_100)
      expect(c.md5_matches_reference).toBe(true)
      expect(c.median_ms).toBeGreaterThan(0)
    }
    expect(out.counts[0].exchange_ms_max).toBe(0)
    expect(out.counts[1]).toMatchObject({ exchange_every: 4, md5_same_as_1_rank: true })
    expect(out.counts[1].efficiency).toBeCloseTo(out.counts[0].median_ms / (2 * out.counts[1].median_ms), 10)
    expect(out.counts[1].exchange_ms_max).toBeGreaterThan(0)
    // Each rank of the median run: its time, exchange time and phases (CPU ranks exchange between the steps: no blocks).
    expect(out.counts[1].per_rank.map((b: { rank: number }) => b.rank)).toEqual([0, 1])
    for (const b of out.counts[1].per_rank) expect(b).toMatchObject({ ms: expect.any(Number), exchange_ms: expect.any(Number), phases: { blocks: 0 } })
  })

  it('through the cluster mode (--executor local) makes its --out folder and gives the same md5 on each count', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralab-bench-ranks-'))
    try {
      const out = join(dir, 'not', 'yet')
      const r = paralab(['bench', 'landslide', ...GRIDS, '--steps', '100', '--backend', 'active', '--ranks', '1,2', '--repeat', '1', '--rank-timeout', '60', '--executor', 'local', '--out', out, '--json'], { PARALAB_GPU: 'off' })
      expect(r.code, r.stderr).toBe(0)
      for (const c of JSON.parse(r.stdout).counts) expect(c.md5).toBe(MD5_100)
      expect(existsSync(join(out, 'ranks-2-run-0'))).toBe(true)
      expect(readFileSync(join(out, 'ranks-2-run-0', 'job.sbatch'), 'utf8')).toContain('--rank-timeout 60')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses a list of ranks with the workers backends, and --tile with a cluster run', () => {
    const workers = paralab(['bench', 'landslide', ...GRIDS, '--backend', 'workers', '--ranks', '1,2'])
    expect(workers.code).toBe(2)
    expect(workers.stderr).toContain('--ranks with a list (e.g. 1,2,4) runs the job in ranks: give one backend of serial, active or gpu')
    const tiled = paralab(['bench', 'landslide', ...GRIDS, '--backend', 'active', '--ranks', '1,2', '--tile', '2x2', '--executor', 'local', '--out', '/tmp/unused'])
    expect(tiled.code).toBe(2)
    expect(tiled.stderr).toContain('--tile builds the grid in memory, and a cluster job reads its grids from files')
  })
})
