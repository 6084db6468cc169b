import { describe, expect, it, vi } from 'vitest'
import { API_METHODS } from '../../src/shared/api'
import { ApiError, MAX_ERROR_MESSAGE } from '../../src/shared/errors'
import { apiClient, replyTo, RequestTracker } from '../../src/shared/rpc'
import { MAX_REPLY_BYTES, peekRequestId, replyText } from '../../src/shared/wire'

/** A tracker whose requests land in `sent`, by id. */
function tracker() {
  const requests = new RequestTracker()
  const sent: number[] = []
  const request = () => requests.request((id) => sent.push(id))
  return { requests, sent, request }
}

describe('RequestTracker', () => {
  it('gives every request its own id and settles each by its reply, in any order', async () => {
    const { requests, sent, request } = tracker()
    const a = request()
    const b = request()
    const c = request()
    expect(new Set(sent).size).toBe(3)
    requests.settle({ id: sent[2], result: 'c' })
    requests.settle({ id: sent[0], result: { a: 1 } })
    requests.settle({ id: sent[1], result: null })
    await expect(a).resolves.toEqual({ a: 1 })
    await expect(b).resolves.toBeNull()
    await expect(c).resolves.toBe('c')
  })

  it('rejects with an ApiError that keeps the code of an error reply', async () => {
    const { requests, sent, request } = tracker()
    const call = request()
    requests.settle({ id: sent[0], error: { code: 'gpu-unavailable', message: 'no adapter' } })
    const error = await call.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ code: 'gpu-unavailable', message: 'no adapter' })
  })

  it('ignores replies to unknown or already settled ids', async () => {
    const { requests, sent, request } = tracker()
    const call = request()
    requests.settle({ id: sent[0] + 100, result: 'stray' })
    requests.settle({ id: sent[0], result: 'first' })
    requests.settle({ id: sent[0], error: { code: 'internal', message: 'late' } })
    await expect(call).resolves.toBe('first')
  })

  it('failAll rejects every pending request with the one error; later replies change nothing', async () => {
    const { requests, sent, request } = tracker()
    const calls = [request(), request()]
    const gone = new ApiError('io', 'the other side went away')
    requests.failAll(gone)
    for (const call of calls) await expect(call).rejects.toBe(gone)
    requests.settle({ id: sent[0], result: 'too late' })
    // New requests after a failure are tracked afresh.
    const next = request()
    requests.settle({ id: sent[2], result: 'ok' })
    await expect(next).resolves.toBe('ok')
  })

  it('rejects a request whose send throws, as an ApiError', async () => {
    const requests = new RequestTracker()
    await expect(
      requests.request(() => {
        throw new Error('socket closed')
      }),
    ).rejects.toMatchObject({ code: 'internal', message: 'socket closed' })
  })
})

describe('replyTo', () => {
  it('answers with the result, or with the error and its code', async () => {
    await expect(replyTo(4, async () => [1])).resolves.toEqual({ id: 4, result: [1] })
    await expect(
      replyTo(5, () => {
        throw new ApiError('invalid-argument', 'bad')
      }),
    ).resolves.toEqual({ id: 5, error: { code: 'invalid-argument', message: 'bad' } })
  })
})

describe('apiClient', () => {
  it('has a function for every name in API_METHODS, forwarding its name and arguments', async () => {
    const call = vi.fn(async (method: string, args: unknown[]) => ({ method, args }))
    const api = apiClient(call) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
    expect(Object.keys(api).sort()).toEqual([...API_METHODS].sort())
    for (const method of API_METHODS) {
      expect(typeof api[method]).toBe('function')
      await expect(api[method]('x', 2)).resolves.toEqual({ method, args: ['x', 2] })
    }
    expect(call).toHaveBeenCalledTimes(API_METHODS.length)
  })

  it('forwards a typed call as is', async () => {
    const call = vi.fn(async () => 'job-1')
    await expect(apiClient(call).startJob('device', { measure: false })).resolves.toBe('job-1')
    expect(call).toHaveBeenCalledWith('startJob', ['device', { measure: false }])
  })
})

describe('what a reply and an error may hold', () => {
  it('a reply past its bound is an error saying so, with the request\'s id', () => {
    expect(MAX_REPLY_BYTES).toBe(96 * 2 ** 20)
    expect(JSON.parse(replyText({ id: 3, result: 'x'.repeat(10) }, 'exportChart', 100))).toEqual({ id: 3, result: 'x'.repeat(10) })
    expect(JSON.parse(replyText({ id: 3, result: 'x'.repeat(3_000_000) }, 'exportResultFile', 2 ** 20))).toEqual({
      id: 3,
      error: { code: 'io', message: 'the reply to exportResultFile is 3.0 MB, over the 1 MiB a reply may hold' },
    })
  })

  it('an error message of 40 MB is cut to 16 KiB with a note of what was left out', () => {
    const e = new ApiError('invalid-input', 'x'.repeat(40_000_000))
    expect(e.message).toBe(`${'x'.repeat(MAX_ERROR_MESSAGE)} … (${40_000_000 - MAX_ERROR_MESSAGE} more characters left out)`)
    expect(ApiError.from({ code: 'io', message: 'y'.repeat(20_000) }).message).toHaveLength(MAX_ERROR_MESSAGE + ' … (3616 more characters left out)'.length)
    expect(new ApiError('io', 'short').message).toBe('short')
  })

  it('the id of a request too large to parse is read from its start', () => {
    expect(peekRequestId('{"id":42,"method":"exportChart","args":[{"chart"')).toBe(42)
    expect(peekRequestId(' { "id" : 7 }')).toBe(7)
    expect(peekRequestId('{"method":"x","id":42}')).toBe(-1)
    expect(peekRequestId('[1,2,3]')).toBe(-1)
  })
})
