// The dashboard's error log: everything that went wrong, shown in one banner under the header.
import { inject, ref, watch, type InjectionKey, type Ref } from 'vue'
import type { ApiErrorShape } from '../../shared/errors'

export interface Notice {
  id: number
  message: string
  /** The error's own words, without the context: one cause is shown once, however many calls it failed. */
  cause: string
  /** What failed, e.g. 'Statistics failed': a newer report of it replaces this one. */
  context?: string
}

export interface ErrorLog {
  readonly notices: Ref<Notice[]>
  /** Adds the message of `error` (an ApiError, an Error or a {code, message}), prefixed by `context`; it replaces the context's earlier notice. */
  report(error: unknown, context?: string): void
  /** Removes the notices of `context`: what they said is no longer the case. */
  clear(context: string): void
  dismiss(id: number): void
}

export const ERROR_LOG_KEY: InjectionKey<ErrorLog> = Symbol('paralab error log')

export function createErrorLog(): ErrorLog {
  const notices = ref<Notice[]>([])
  let nextId = 1
  const without = (context: string) => notices.value.filter((n) => n.context !== context)
  return {
    notices,
    report(error, context) {
      const cause = messageOf(error)
      const others = context ? without(context) : notices.value
      // A lost connection fails every call with the same words: say it once.
      notices.value = others.some((n) => n.cause === cause) ? others : [...others, { id: nextId++, message: context ? `${context}: ${cause}` : cause, cause, context }]
    },
    clear(context) {
      notices.value = without(context)
    },
    dismiss(id) {
      notices.value = notices.value.filter((n) => n.id !== id)
    },
  }
}

/** Reports a view's job error under `context` while it is the view's latest outcome: the next job (or a reopened run) clears it. */
export function reportJobErrors(log: ErrorLog, error: Readonly<Ref<ApiErrorShape | null>>, context: string): void {
  watch(error, (e) => (e ? log.report(e, context) : log.clear(context)))
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
