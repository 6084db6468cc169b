import { describe, expect, it } from 'vitest'
import { validateRequest } from '../../src/shared/validate'

const ok = (m: string, a: unknown[]) => () => validateRequest(m, a)
const statsParams = { files: ['a.csv'], backends: ['serial', 'gpu'], precision: 'f64', repeat: 10, batches: 1 }

describe('validateRequest', () => {
  it('accepts well-formed requests', () => {
    expect(ok('deviceInfo', [])).not.toThrow()
    expect(ok('startJob', ['bench-device', {}])).not.toThrow()
    expect(ok('startJob', ['stats', statsParams])).not.toThrow()
    expect(ok('exportChart', [{ chart: { kind: 'roofline', data: {} }, format: 'svg', fileName: 'roofline.svg' }])).not.toThrow()
  })

  it.each([
    ['nope', [], /method must be one of/],
    ['deviceInfo', [1], /deviceInfo takes 0 argument/],
    ['startJob', ['mine-bitcoin', {}], /job kind must be one of/],
    ['startJob', ['stats', { ...statsParams, backends: ['cuda'] }], /backend must be one of .*got "cuda"/],
    ['startJob', ['stats', { ...statsParams, repeat: 0 }], /repeat must be an integer in 1…1000; got 0/],
    ['startJob', ['stats', { ...statsParams, precision: 'f16' }], /precision must be one of f64, f32/],
    ['startJob', ['bench-device', { readBytes: -1 }], /readBytes must be an integer/],
    ['cancelJob', [42], /jobId must be a string/],
    ['exportChart', [{ chart: { kind: 'roofline', data: {} }, format: 'gif', fileName: 'a.gif' }], /format must be one of png, svg/],
    ['exportChart', [{ chart: { kind: 'roofline', data: {} }, format: 'png', fileName: '../../etc/x.png' }], /fileName must be a plain file name/],
    ['exportChart', [{ chart: { kind: 'pie', data: {} }, format: 'png', fileName: 'a.png' }], /chart.kind must be one of/],
    ['exportResults', [{ result: { files: 'x' }, format: 'csv', fileName: 'r.csv' }], /result.files must be a list/],
  ])('rejects %s %j', (method, args, message) => {
    expect(ok(method as string, args as unknown[])).toThrow(message as RegExp)
    try {
      validateRequest(method, args)
    } catch (e) {
      expect((e as { code: string }).code).toBe('invalid-argument')
    }
  })
})
