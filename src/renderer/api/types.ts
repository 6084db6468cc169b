// The API as the dashboard sees it: the shared ParalabApi plus what differs between transports.
import type { DataFile, ParalabApi } from '../../shared/api'

export type TransportKind = 'electron' | 'websocket'

export interface DashboardApi extends ParalabApi {
  readonly transport: TransportKind
  /** Desktop app only: makes files dropped on the window readable (a browser never reveals paths). */
  dropFiles?(files: File[]): Promise<DataFile[]>
  /** Calls `listener` when the backend can no longer be reached; returns the unsubscribe function. */
  onConnectionError(listener: (message: string) => void): () => void
}

/** What the Electron preload exposes as `window.paralab`. */
export interface PreloadApi extends ParalabApi {
  dropFiles?(files: File[]): Promise<DataFile[]>
}

declare global {
  interface Window {
    paralab?: PreloadApi
  }
}
