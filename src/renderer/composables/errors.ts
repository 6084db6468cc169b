// The dashboard's error log: everything that went wrong, shown in one banner under the header.
import { inject, ref, type InjectionKey, type Ref } from 'vue'

export interface Notice {
  id: number
  message: string
  /** The error's own words, without the context: one cause is shown once, however many calls it failed. */
  cause: string
}

export interface ErrorLog {
  readonly notices: Ref<Notice[]>
  /** Adds the message of `error` (an ApiError, an Error or a {code, message}), prefixed by `context`. */
  report(error: unknown, context?: string): void
  dismiss(id: number): void
}

export const ERROR_LOG_KEY: InjectionKey<ErrorLog> = Symbol('paralab error log')

export function createErrorLog(): ErrorLog {
  const notices = ref<Notice[]>([])
  let nextId = 1
  return {
    notices,
    report(error, context) {
      const cause = messageOf(error)
      // A lost connection fails every call with the same words: say it once.
      if (notices.value.some((n) => n.cause === cause)) return
      notices.value = [...notices.value, { id: nextId++, message: context ? `${context}: ${cause}` : cause, cause }]
    },
    dismiss(id) {
      notices.value = notices.value.filter((n) => n.id !== id)
    },
  }
}

export function useErrorLog(): ErrorLog {
  const log = inject(ERROR_LOG_KEY)
  if (!log) throw new Error('No error log provided: mount the dashboard with provideDashboard()')
  return log
}

export function messageOf(error: unknown): string {
  if (typeof error === 'string') return error
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message)
  return String(error)
}
