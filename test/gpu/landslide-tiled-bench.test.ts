// bench landslide --tile on the software adapter: the example's slope tiled 2 × 2 in memory, the
// GPU's deviation measured against the original's f64 run tiled when only the GPU runs, and that
// reference the same grid (md5) as an `active` run of the tiled grid itself.
import { afterAll, describe, expect, it } from 'vitest'
import { resetGpu } from '../../src/main/gpu/runtime'
import { benchLandslide } from '../../src/main/workloads/landslide/bench'

afterAll(() => resetGpu())

describe('bench landslide --tile', () => {
  it('runs the GPU alone on the tiled grid, against the original\'s reference tiled', async () => {
    const common = { steps: 30, variants: ['fused' as const], repeat: 1, precision: 'f32' as const, tile: { rows: 2, cols: 2 }, log: () => {} }
    const gpuOnly = await benchLandslide({ ...common, backends: ['gpu'] })
    expect(gpuOnly.input).toMatchObject({ rows: 240, cols: 320, tile: '2x2' })
    expect(gpuOnly.notes.join('\n')).toContain('reference: the original\'s active run tiled')
    expect(Object.keys(gpuOnly.runs)).toEqual(['gpu/fused'])
    const run = gpuOnly.runs['gpu/fused']
    expect(run.max_abs_dh).toBeLessThan(1e-4)
    expect(run.cells_over_1mm).toBe(0)
    // The same grid run as a whole on the CPU: its md5 is the tiled reference's, and the GPU lies as far from it.
    const withCpu = await benchLandslide({ ...common, backends: ['active', 'gpu'] })
    expect(withCpu.reference_md5).toBe(gpuOnly.reference_md5)
    expect(withCpu.runs['gpu/fused'].max_abs_dh).toBe(run.max_abs_dh)
    expect(withCpu.notes.join('\n')).not.toContain('reference: the original')
  }, 120_000)
})
