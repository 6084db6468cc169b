import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { electronApi, ipcError } from '../../src/renderer/api/electron'
import type { PreloadApi } from '../../src/renderer/api/types'

describe('ipcError', () => {
  it('keeps the message of an IPC rejection without Electron prefix', () => {
    const e = ipcError(new Error("Error invoking remote method 'paralab:startJob': Error: /data/x.csv: no such file"))
    expect(e).toMatchObject({ code: 'internal', message: '/data/x.csv: no such file' })
  })
  it('recovers the code of an ApiError serialized into the message', () => {
    const e = ipcError(new Error(`Error invoking remote method 'paralab:exportChart': Error: {"code":"invalid-argument","message":"bad format"}`))
    expect(e).toMatchObject({ code: 'invalid-argument', message: 'bad format' })
  })
  it('keeps an error that already has a code', () => {
    expect(ipcError({ code: 'gpu-unavailable', message: 'no adapter' })).toMatchObject({ code: 'gpu-unavailable', message: 'no adapter' })
    const original = new ApiError('io', 'disk full')
    expect(ipcError(original)).toBe(original)
  })
})

describe('electronApi', () => {
  it('forwards calls and events to the bridge and maps rejections', async () => {
    const off = vi.fn()
    const bridge = {
      startJob: vi.fn(async () => 'job-3'),
      example: vi.fn(async () => ({ params: { measure: true }, files: [] })),
      listDataFiles: vi.fn(async () => {
        throw new Error("Error invoking remote method 'paralab:listDataFiles': Error: permission denied")
      }),
      onJobEvent: vi.fn(() => off),
      dropFiles: vi.fn(async () => [{ path: '/home/ana/a.csv', name: 'a.csv', bytes: 3 }]),
    } as unknown as PreloadApi
    const api = electronApi(bridge)
    await expect(api.startJob('device', { measure: true, repeat: 2 })).resolves.toBe('job-3')
    expect(bridge.startJob).toHaveBeenCalledWith('device', { measure: true, repeat: 2 })
    await expect(api.example('device')).resolves.toEqual({ params: { measure: true }, files: [] })
    expect(bridge.example).toHaveBeenCalledWith('device')
    await expect(api.listDataFiles()).rejects.toMatchObject({ code: 'internal', message: 'permission denied' })
    const listener = () => {}
    expect(api.onJobEvent(listener)).toBe(off)
    expect(bridge.onJobEvent).toHaveBeenCalledWith(listener)
    await expect(api.dropFiles?.([{} as File])).resolves.toEqual([{ path: '/home/ana/a.csv', name: 'a.csv', bytes: 3 }])
  })

  it('has no dropFiles when the bridge has none', () => {
    expect(electronApi({} as PreloadApi).dropFiles).toBeUndefined()
  })
})
