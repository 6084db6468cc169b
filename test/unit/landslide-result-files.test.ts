// The landslide's final grid leaves the backend only as files: .asc and .npy downloads and the final
// frame at full resolution, made from the grid the newest job kept or simulated again from a run's
// inputs (its md5 checked); the frame carries map coordinates from the header and a scale bar.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { Backend } from '../../src/main/backend/backend'
import { ENGINES } from '../../src/main/workloads'
import { referenceMd5 } from '../../src/main/workloads/landslide/reference-format'
import { fullResolutionFrame } from '../../src/main/workloads/landslide/thickness-files'
import { keptFinalGrid } from '../../src/main/workloads/landslide/final-grid'
import { validateRequest } from '../../src/shared/validate'
import { SvgPainter } from '../../src/shared/workloads/landslide/painters'
import { paintFrame } from '../../src/shared/workloads/landslide/thickness-frame'
import { frameLayout, mapCoordinates, roundLength } from '../../src/shared/workloads/landslide/map-frame'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'

const D = '/work/shared/data/landslide'
const grids = [`${D}/tessina_header.txt`, `${D}/tessina_dem.txt`, `${D}/tessina_source.txt`]

async function run(backend: Backend, steps: number): Promise<LandslideResult> {
  const env = await backend.jobs.result(backend.startJob('landslide', { grids, steps, backends: ['workers-active'], repeat: 1 } as never))
  return env.results as LandslideResult
}

/** The float64 values of a C-ordered .npy and its shape. */
function readNpy(bytes: Uint8Array): { shape: number[]; values: Float64Array } {
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint16(8, true)
  const header = new TextDecoder().decode(bytes.subarray(10, 10 + headerLength))
  const shape = /'shape': \((\d+), (\d+)\)/.exec(header)!.slice(1).map(Number)
  const data = bytes.slice(10 + headerLength)
  return { shape, values: new Float64Array(data.buffer, data.byteOffset, data.byteLength / 8) }
}

describe('the landslide\'s result files', () => {
  it('are the final grid as .asc and .npy and the final frame at full resolution, for the newest run and an earlier one', async () => {
    const backend = new Backend({ engines: ENGINES })
    const earlier = await run(backend, 300)
    const newest = await run(backend, 200)
    expect(keptFinalGrid(newest)).not.toBeNull()
    // The earlier run's grid is no longer kept: simulated again, and its md5 checked.
    expect(keptFinalGrid(earlier)).toBeNull()
    for (const r of [earlier, newest]) {
      const npy = await backend.renderResultFile({ workload: 'landslide', results: r, file: 'final.npy', fileName: 'final.npy' })
      const { shape, values } = readNpy(npy.bytes)
      expect(shape).toEqual([610, 496])
      // Walls are NaN (no thickness), as many as the DEM's NODATA cells; as 0 they give the reference's md5.
      expect(values.filter(Number.isNaN).length).toBe(r.grid.walls)
      expect(r.grid.walls).toBeGreaterThan(0)
      expect(referenceMd5(values.map((v) => (Number.isNaN(v) ? 0 : v)), 610, 496)).toBe(r.reference.md5)
      const asc = new TextDecoder().decode((await backend.renderResultFile({ workload: 'landslide', results: r, file: 'final.asc', fileName: 'final.asc' })).bytes)
      expect(asc.split('\n')[0]).toMatch(/^ncols\s+496$/)
      expect(asc.split('\n').length).toBe(6 + 610 + 1)
    }
    const png = await backend.renderResultFile({ workload: 'landslide', results: newest, file: 'thickness-full.png', fileName: 'x.png' })
    expect(png.mime).toBe('image/png')
    expect(createHash('md5').update(png.bytes).digest('hex')).toHaveLength(32)
    await expect(backend.renderResultFile({ workload: 'landslide', results: newest, file: 'final.csv', fileName: 'x' })).rejects.toThrow(/makes no file "final.csv"/)
  }, 120_000)

  it('draw the final frame a grid cell a map cell where the job\'s maps hold blocks of cells', async () => {
    const backend = new Backend({ engines: ENGINES })
    const r = await run(backend, 1000)
    const last = r.maps.at(-1)!
    expect(last.block).toBeGreaterThan(1)
    const { frames } = fullResolutionFrame(r, keptFinalGrid(r)!)
    const full = frames.maps[0]
    expect(full.block).toBe(1)
    expect([full.row0, full.col0, full.size]).toEqual([last.row0, last.col0, last.size * last.block])
    expect(frames.hillshade!.size).toBe(full.size)
    // At PNG scale 2 a cell is 2 pixels: the export holds every grid cell.
    expect(frameLayout(full.size, 2).cell).toBeGreaterThanOrEqual(2)
  }, 120_000)

  it('are asked for by name only', () => {
    const req = (file: string) => [{ workload: 'landslide', results: {}, file, fileName: 'x.asc' }]
    expect(() => validateRequest('exportResultFile', req('final.asc'))).not.toThrow()
    for (const bad of ['../etc/passwd', '/tmp/x', 'a/b', '']) expect(() => validateRequest('exportResultFile', req(bad))).toThrow(/file must be/)
  })
})

describe('the thickness frame\'s coordinates', () => {
  const grid = { rows: 610, cols: 496, cellsize: 10, xllcorner: 1000, yllcorner: 5000 }
  const map = { step: 0, row0: 100, col0: 200, size: 50, block: 4, values: new Array(2500).fill(null) }

  it('come from the header: west edge and north edge of the window, its width in metres', () => {
    expect(mapCoordinates(grid, map)).toEqual({ west: 1000 + 200 * 10, north: 5000 + (610 - 100) * 10, metres: 50 * 4 * 10 })
    expect([roundLength(500), roundLength(480), roundLength(1999), roundLength(0.3)]).toEqual([500, 200, 1000, 0.2])
  })

  it('are drawn as eastings and northings on the map\'s edges with a scale bar', () => {
    const svg = new SvgPainter()
    paintFrame(svg, { steps: 10, grid, maps: [map] }, 0, frameLayout(map.size))
    const doc = [...svg.pieces(10, 10)].join('')
    // 2,000 m wide from x = 3,000: eastings every 500 m; northings down from y = 10,100.
    for (const label of ['3,000', '3,500', '5,000', '10,000', '9,500', '500 m']) expect(doc).toContain(`>${label}</text>`)
  })
})
