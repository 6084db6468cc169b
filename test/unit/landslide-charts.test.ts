import { describe, expect, it } from 'vitest'
import type { SeriesChartData } from '../../src/shared/charts/spec'
import { landslideCharts, massDrift } from '../../src/shared/workloads/landslide/charts'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'

function result(mass: number[]): LandslideResult {
  const step = mass.map((_, i) => i * 100)
  return {
    grid: { rows: 10, cols: 10, cellsize: 10, xllcorner: 0, yllcorner: 0, nodata: null, walls: 0, files: { dem: 'dem.txt', source: 'source.txt' } },
    steps: step.at(-1) ?? 0,
    reference: { backend: 'serial', md5: 'x', mass_start: mass[0], mass_end: mass.at(-1)! },
    runs: {},
    series: { step, mass, flooded: mass.map(() => 1), max_thickness: mass.map(() => 1), active: mass.map(() => 1) },
    maps: [],
    skipped: [],
  }
}

const massChart = (mass: number[]) => {
  const spec = landslideCharts(result(mass)).find((c) => c.name === 'mass')!.spec
  if (spec.kind !== 'series') throw new Error(spec.kind)
  return spec.data as SeriesChartData
}

describe('the landslide mass chart', () => {
  it('plots the relative drift in units of its power of ten and says Σh is constant to the bound that holds', () => {
    // Rounding noise of 1e-11 m on 5,557 m: the chart the old code drew had every tick reading 5,557.
    const m0 = 5557.123456789
    const data = massChart([m0, m0 + 1e-11, m0 - 2e-11, m0 + 0.5e-11])
    expect(data.yLabel).toBe('(Σh − Σh₀)/Σh₀ (× 10⁻¹⁵)')
    const values = data.series[0].values as number[]
    expect(values[0]).toBe(0)
    // −2e-11 / 5557 = −3.6e-15: −3.6 in units of 1e-15, a readable axis.
    expect(values[2]).toBeCloseTo(-2e-11 / m0 / 1e-15, 2)
    expect(data.note).toContain('constant to 10⁻¹⁴')
    expect(data.note).toContain('Σh₀ = 5,557.123457 m, a debris volume of 555,712.3457 m³')
  })

  it('says so when Σh is exactly constant, and how much it changed when it is not conserved', () => {
    expect(massChart([4, 4, 4]).note).toContain('exactly constant')
    const lost = massChart([100, 99, 98])
    expect(lost.note).toContain('changed by up to 0.02 of Σh₀')
    expect(lost.note).not.toContain('constant')
    expect(lost.yLabel).toBe('(Σh − Σh₀)/Σh₀ (× 0.01)')
  })

  it('falls back to Σh itself when there was no debris to begin with', () => {
    expect(massDrift([0, 0])).toBeNull()
    const data = massChart([0, 0])
    expect(data.yLabel).toBe('Σh (m)')
    expect(data.note).toContain('Σh₀ = 0')
  })
})
