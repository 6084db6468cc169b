// The distance heatmap's zoom: a block range at full resolution or in blocks, the same read from the
// matrix a dashboard's run kept on disk as from memory; a kept file that is not that matrix refused.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { INF } from '../../src/shared/workloads/paths/types'
import { parseZoomRange } from '../../src/shared/workloads/zoom-range'
import { writeFileAtomic } from '../../src/main/io/atomic-write'
import { keepDistances, keptDistances, keptMatrixPieces, zoomKept } from '../../src/main/workloads/paths/kept-distances'
import { rowsOf, zoomDistances } from '../../src/main/workloads/paths/zoom'

const dir = mkdtempSync(join(tmpdir(), 'paralab-paths-zoom-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const V = 600
const d = new Int32Array(V * V)
for (let i = 0; i < d.length; i++) d[i] = i % 7 === 0 ? INF : (i * 2654435761) % 1000
for (let v = 0; v < V; v++) d[v * V + v] = 0

async function kept(name: string): Promise<string> {
  const file = join(dir, name)
  await writeFileAtomic(file, keptMatrixPieces(d, V))
  return file
}

describe('zoom of the distances', () => {
  it('is each pair\'s distance up to 256 a side (null: no path), and blocks of least, greatest and mean beyond', async () => {
    const { rows, cols } = parseZoomRange('10:19,500:509', V, 'vertices')
    const z = await zoomDistances(rowsOf(d, V, cols), rows, cols)
    expect(z.block).toBe(1)
    expect(z.min).toHaveLength(100)
    for (let i = 0; i < 10; i++) for (let j = 0; j < 10; j++) {
      const x = d[(10 + i) * V + 500 + j]
      expect(z.min[i * 10 + j]).toBe(x === INF ? null : x)
    }
    const wide = parseZoomRange('0:599', V, 'vertices')
    const b = await zoomDistances(rowsOf(d, V, wide.cols), wide.rows, wide.cols)
    expect(b.block).toBe(3)
    expect(b.min).toHaveLength(200 * 200)
    const cell = [0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => d[i * V + j])).filter((x) => x !== INF)
    expect([b.min[0], b.max![0]]).toEqual([Math.min(...cell), Math.max(...cell)])
  })

  it('reads the same from the kept matrix as from memory, and remembers it per unchanged input', async () => {
    const file = await kept('distances-0.npy')
    for (const range of ['0:599', '100:355,300:555', '7:7']) {
      const { rows, cols } = parseZoomRange(range, V, 'vertices')
      expect(await zoomKept(file, V, rows, cols)).toEqual(await zoomDistances(rowsOf(d, V, cols), rows, cols))
    }
    const input = join(dir, 'graph.bin')
    writeFileSync(input, 'a graph')
    await keepDistances(async (name, bytes, data) => (await writeFileAtomic(join(dir, `kept-${name}`), data), join(dir, `kept-${name}`)), input, 0, d, V)
    expect(await keptDistances(input)).toEqual({ file: join(dir, 'kept-distances-0.npy'), V, real: false })
    writeFileSync(input, 'another graph')
    expect(await keptDistances(input)).toBeNull()
  })

  it('refuses a kept file that is a link, too short, or another matrix\'s, and ranges outside the graph', async () => {
    const { rows, cols } = parseZoomRange('0:9', V, 'vertices')
    const link = join(dir, 'link.npy')
    symlinkSync(await kept('target.npy'), link)
    await expect(zoomKept(link, V, rows, cols)).rejects.toThrow(/symbolic link/)
    const short = await kept('short.npy')
    truncateSync(short, 1000)
    await expect(zoomKept(short, V, rows, cols)).rejects.toThrow(/hold 1000 bytes, not the \d+ of a 600 × 600 matrix/)
    await expect(zoomKept(await kept('other.npy'), 599, rows, cols)).rejects.toThrow(/holds \d+ bytes, more than|not the/)
    expect(() => parseZoomRange('0:600', V, 'vertices')).toThrow(/positions run from 0 to 599/)
    expect(() => parseZoomRange('0:1024', 2000, 'vertices')).toThrow(/at most 1024 vertices a side/)
    expect(() => parseZoomRange('0:9,0:19', V, 'vertices')).toThrow(/span as many vertices/)
  })
})
