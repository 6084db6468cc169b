import { expect } from 'vitest'
import { ApiError } from '../../src/shared/errors'

/** The ApiError a promise rejects with; fails the test if it resolves or throws something else. */
export async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    return e as ApiError
  }
  return expect.fail('expected a failure')
}
