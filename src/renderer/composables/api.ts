// How components reach the API and the error log: provided once at the root, injected below.
import { inject, type App, type InjectionKey } from 'vue'
import type { DashboardApi } from '../api/types'
import { ERROR_LOG_KEY, type ErrorLog } from './errors'

export const API_KEY: InjectionKey<DashboardApi> = Symbol('paralab api')

export function useApi(): DashboardApi {
  const api = inject(API_KEY)
  if (!api) throw new Error('No Paralab API provided: mount the dashboard with provideDashboard()')
  return api
}

/** What `app.use` or a test's `global.provide` needs: the API and the error log. */
export function dashboardProvides(api: DashboardApi, errors: ErrorLog): Record<symbol, unknown> {
  return { [API_KEY]: api, [ERROR_LOG_KEY]: errors }
}

export function provideDashboard(app: App, api: DashboardApi, errors: ErrorLog): void {
  app.provide(API_KEY, api)
  app.provide(ERROR_LOG_KEY, errors)
}
