// Requests from the desktop app's main process to its backend process: the API methods plus
// `allowFiles`, which makes files the user picked readable.
import type { ApiMethod } from '../shared/api'

export interface HostRequest {
  id: number
  method: ApiMethod | 'allowFiles'
  args: unknown[]
}
