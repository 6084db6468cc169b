// The desktop window's connection to a `paralab serve` (on a login node, through an SSH tunnel):
// connected, the window loads that server's own dashboard page, which talks to it over its
// WebSocket as in a browser (same origin, serve's own dashboard and CSP); the app's own page is
// loaded again to go back.
import { parseServerUrl, type ServerAddress } from '../shared/server-url'

export class ServerConnection {
  address: ServerAddress | null = null

  /** Connects to the server at `url` (checked: a local address with its token), or back to the app's own backend (null). */
  connect(url: unknown): void {
    this.address = url === null ? null : parseServerUrl(url)
  }

  /** The page to load: the connected server's dashboard with its token, or null for the app's own. */
  page(): string | null {
    return this.address?.page ?? null
  }

  /** Whether `url` is a page of the connected server's dashboard (it may ask to connect elsewhere or back). */
  isServerPage(url: string): boolean {
    return !!this.address && url.startsWith(this.address.base)
  }
}
