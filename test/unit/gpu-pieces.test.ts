// Long GPU work in pieces, sized from the pace measured so far: on a software adapter (a workgroup
// of 100 ms) no piece lasts beyond ~0.5 s; on a fast GPU (a microsecond a workgroup) the pieces
// grow to the whole dispatch within a few submits and the next run submits it whole; a cancel is
// seen between pieces. The device is simulated here (what is measured is the sizing, not a GPU):
// each submit "takes" its workgroups times a cost per workgroup plus a submit's latency.
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import type { Gpu } from '../../src/main/gpu/gpu'
import { PIECE_MAX_MS, Pace, runInPieces } from '../../src/main/gpu/pieces'

function device(msPerWorkgroup: number, latencyMs = 0.05, onSubmit?: () => void) {
  const submits: { first: number; count: number; ms: number }[] = []
  const gpu = {
    run: async (_label: string, work: readonly { first: number; count: number }[]) => {
      const { first, count } = work[0]
      const ms = latencyMs + count * msPerWorkgroup
      submits.push({ first, count, ms })
      onSubmit?.()
      return ms
    },
  } as unknown as Gpu
  return { gpu, submits }
}

const part = (count: number) => ({ count, piece: (first: number, n: number) => [{ first, count: n }] as never })

describe('runInPieces', () => {
  it('on a software adapter: every workgroup once, in order, no piece beyond PIECE_MAX_MS', async () => {
    const { gpu, submits } = device(100)
    const ms = await runInPieces(gpu, 'cross', [part(300), part(40)], new Pace())
    expect(submits.every((s) => s.ms <= PIECE_MAX_MS)).toBe(true)
    expect(submits.reduce((a, s) => a + s.count, 0)).toBe(340)
    expect(submits[0]).toMatchObject({ first: 0, count: 1 })
    // Each part's workgroups from its first, contiguous.
    let next = 0
    for (const s of submits) {
      if (s.first === 0) next = 0
      expect(s.first).toBe(next)
      next += s.count
    }
    expect(ms).toBeCloseTo(submits.reduce((a, s) => a + s.ms, 0), 6)
  })

  it('on a fast GPU: a few growing pieces the first time, the whole dispatch once the pace is known', async () => {
    const { gpu, submits } = device(0.001)
    const pace = new Pace()
    // 100 000 workgroups: 100 ms whole, under PIECE_MS.
    await runInPieces(gpu, 'cross', [part(100_000)], pace)
    expect(submits.length).toBeLessThanOrEqual(6)
    submits.length = 0
    await runInPieces(gpu, 'cross', [part(100_000)], pace)
    expect(submits).toHaveLength(1)
  })

  it('stops between pieces once cancelled', async () => {
    const controller = new AbortController()
    let n = 0
    const { gpu, submits } = device(100, 0.05, () => ++n === 3 && controller.abort())
    await expect(runInPieces(gpu, 'means', [part(1000)], new Pace(), controller.signal)).rejects.toThrow(ApiError)
    expect(submits).toHaveLength(3)
  })
})
