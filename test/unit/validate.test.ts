import { describe, expect, it } from 'vitest'
import { validateRequest } from '../../src/shared/validate'
import { WORKLOAD_IDS } from '../../src/shared/workloads'

const ok = (m: string, a: unknown[]) => () => validateRequest(m, a)
const statsParams = { files: ['a.csv'], backends: ['serial', 'gpu'], precision: 'f64', repeat: 10, batches: 1 }
const envelope = { workload: 'stats', results: { files: [] } }

describe('validateRequest', () => {
  it('accepts well-formed requests', () => {
    expect(ok('deviceInfo', [])).not.toThrow()
    expect(ok('startJob', ['device', {}])).not.toThrow()
    expect(ok('startJob', ['device', { measure: true, readMb: 16 }])).not.toThrow()
    expect(ok('startJob', ['stats', statsParams])).not.toThrow()
    expect(ok('startJob', ['stats', { files: ['a.csv'] }])).not.toThrow()
    expect(ok('example', ['stats'])).not.toThrow()
    expect(ok('exportChart', [{ chart: { kind: 'roofline', data: {} }, format: 'svg', fileName: 'roofline.svg' }])).not.toThrow()
    expect(ok('exportResults', [{ envelope, format: 'csv', table: 'results', fileName: 'r.csv' }])).not.toThrow()
  })

  it.each([
    ['nope', [], /method must be one of/],
    [42, [], /method must be one of .*; got 42/],
    ['deviceInfo', [1], /deviceInfo takes 0 argument/],
    ['deviceInfo', 'x', /args must be a list/],
  ])('%j %j is not an API call: bad-request', (method, args, message) => {
    expect(ok(method as string, args as unknown[])).toThrow(message as RegExp)
    try {
      validateRequest(method, args)
    } catch (e) {
      expect((e as { code: string }).code).toBe('bad-request')
    }
  })

  it.each([
    ['startJob', ['mine-bitcoin', {}], new RegExp(`unknown workload "mine-bitcoin"; known: ${WORKLOAD_IDS.join(', ')}$`)],
    ['startJob', ['stats', { ...statsParams, backends: ['cuda'] }], /stats: parameter backends must be a non-empty list of serial, simd, workers, workers-simd, gpu; got \["cuda"\]/],
    ['startJob', ['stats', { ...statsParams, repeat: 0 }], /stats: parameter repeat must be an integer in 1…1000; got 0/],
    ['startJob', ['stats', { ...statsParams, precision: 'f16' }], /parameter precision must be one of f64, f32; got "f16"/],
    ['startJob', ['stats', { ...statsParams, threads: 4 }], /stats: unknown parameter "threads"; known: files, columns, backends, precision, repeat, batches/],
    ['startJob', ['stats', { backends: ['serial'] }], /stats: parameter files is required/],
    ['startJob', ['device', { readMb: -1 }], /device: parameter readMb must be an integer in 1…16384; got -1/],
    ['startJob', ['device', []], /device: parameters must be an object/],
    ['example', ['nope'], /unknown workload "nope"/],
    ['cancelJob', [42], /jobId must be a string/],
    ['exportChart', [{ chart: { kind: 'roofline', data: {} }, format: 'gif', fileName: 'a.gif' }], /format must be one of png, svg/],
    ['exportChart', [{ chart: { kind: 'roofline', data: {} }, format: 'png', fileName: '../../etc/x.png' }], /fileName must be a plain file name/],
    ['exportChart', [{ chart: { kind: 'pie', data: {} }, format: 'png', fileName: 'a.png' }], /chart.kind must be one of/],
    ['exportResults', [{ envelope: { workload: 'nope', results: {} }, format: 'csv', fileName: 'r.csv' }], /unknown workload "nope"/],
    ['exportResults', [{ envelope: { workload: 'stats' }, format: 'csv', fileName: 'r.csv' }], /envelope.results must be an object/],
  ])('rejects %s %j', (method, args, message) => {
    expect(ok(method as string, args as unknown[])).toThrow(message as RegExp)
    try {
      validateRequest(method, args)
    } catch (e) {
      expect((e as { code: string }).code).toBe('invalid-argument')
    }
  })
})
