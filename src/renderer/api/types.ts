// The API as the dashboard sees it: the shared ParalabApi plus what differs between transports.
import type { DataFile, ParalabApi } from '../../shared/api'

export type TransportKind = 'electron' | 'websocket'

export interface DashboardApi extends ParalabApi {
  readonly transport: TransportKind
  /** Desktop app only: makes files dropped on the window readable (a browser never reveals paths). */
  dropFiles?(files: File[]): Promise<DataFile[]>
  /** Calls `listener` when the backend can no longer be reached; returns the unsubscribe function. */
  onConnectionError(listener: (message: string) => void): () => void
  /** Desktop app connected to a `paralab serve`: that server's API socket (without the token). */
  readonly server?: string
  /** Desktop app: connect to a `paralab serve` by the address it printed, or back to the app's own backend (null). */
  connectServer?(url: string | null): Promise<void>
  /** Desktop app: its menu's "Connect to a Paralab server…" asks the dashboard for the address. */
  onConnectRequest?(listener: () => void): () => void
}

/** What the Electron preload exposes as `window.paralab`. */
export interface PreloadApi extends ParalabApi {
  dropFiles?(files: File[]): Promise<DataFile[]>
  connectServer?(url: string | null): Promise<void>
  onConnectRequest?(listener: () => void): () => void
}

declare global {
  interface Window {
    paralab?: PreloadApi
  }
}
