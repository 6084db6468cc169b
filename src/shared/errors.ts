// Errors that cross a transport (IPC, WebSocket, worker threads) with their code intact.

/** Error codes a request or a job can end with. */
export type ErrorCode =
  | 'bad-request'
  | 'invalid-argument'
  | 'cancelled'
  | 'gpu-unavailable'
  | 'device-lost'
  | 'invalid-input'
  | 'io'
  | 'internal'

export interface ApiErrorShape {
  code: ErrorCode
  message: string
}

/**
 * Characters an error message holds at most: one that names thousands of files or quotes a huge
 * value is cut there, with a note of how much was left out, so that no error makes a huge reply.
 */
export const MAX_ERROR_MESSAGE = 16 * 1024

/** `message`, cut to MAX_ERROR_MESSAGE characters with a note of what was left out. */
export function boundedMessage(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE) return message
  const note = ` … (${message.length - MAX_ERROR_MESSAGE} more characters left out)`
  return message.slice(0, MAX_ERROR_MESSAGE) + note
}

/** An error that crosses the transport with its code intact. */
export class ApiError extends Error implements ApiErrorShape {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(boundedMessage(message))
    this.name = 'ApiError'
  }

  static from(e: unknown): ApiError {
    if (e instanceof ApiError) return e
    if (e && typeof e === 'object' && 'code' in e && 'message' in e && isErrorCode((e as ApiErrorShape).code))
      return new ApiError((e as ApiErrorShape).code, String((e as ApiErrorShape).message))
    return new ApiError('internal', e instanceof Error ? e.message : String(e))
  }

  toJSON(): ApiErrorShape {
    return { code: this.code, message: this.message }
  }
}

const ERROR_CODES: readonly ErrorCode[] = ['bad-request', 'invalid-argument', 'cancelled', 'gpu-unavailable', 'device-lost', 'invalid-input', 'io', 'internal']
function isErrorCode(c: unknown): c is ErrorCode {
  return typeof c === 'string' && (ERROR_CODES as readonly string[]).includes(c)
}
