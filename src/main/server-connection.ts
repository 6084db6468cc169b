// The desktop window's connection to a `paralab serve` (on a login node, through an SSH tunnel):
// which server the dashboard talks to, the page's query that tells it so, and the socket
// handshake's Origin. serve accepts handshakes only from its own pages, and the window's page is
// a file, so the handshake to the connected server is sent with that server's origin.
import { parseServerUrl, SERVER_QUERY, type ServerAddress } from '../shared/server-url'

export class ServerConnection {
  address: ServerAddress | null = null

  /** Connects to the server at `url` (checked: a local address with its token), or back to the app's own backend (null). */
  connect(url: unknown): void {
    this.address = url === null ? null : parseServerUrl(url)
  }

  /** The dashboard page's query: the server's address, or nothing for the app's own backend. */
  pageQuery(): Record<string, string> {
    return this.address ? { [SERVER_QUERY]: this.address.page } : {}
  }

  /** A request's headers as they go out: the connected server's socket handshake carries its origin. */
  headers(url: string, headers: Record<string, string>): Record<string, string> {
    if (!this.address || !url.startsWith(`${this.address.where}?`)) return headers
    return { ...headers, Origin: this.address.origin }
  }
}
