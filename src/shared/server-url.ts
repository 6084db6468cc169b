// The address of a `paralab serve` that the desktop app connects to: the URL serve printed, with
// its session token, reached on this machine (through an SSH tunnel to a login node). The main
// process and the dashboard's connect dialog read it the same way.
import { ApiError } from './errors'

export interface ServerAddress {
  /** The dashboard's address with its token, as serve printed it. */
  page: string
  /** The API socket with the token, to connect to. */
  socket: string
  /** The API socket without the token, for messages. */
  where: string
  /** The server's origin (http://127.0.0.1:8080). */
  origin: string
  /** Where its dashboard lives, e.g. http://127.0.0.1:8080/paralab-8080/ (its pages are under it). */
  base: string
}

/** Hosts a tunnel ends on: serve listens on 127.0.0.1 only, and the dashboard's CSP lets it connect nowhere else. */
const LOCAL_HOSTS = ['127.0.0.1', 'localhost']

/** scheme://host:port/path?query#hash, read without the URL class (src/shared has neither DOM nor Node). */
const ADDRESS = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:]+\]|[^/:?#]+)(?::(\d{1,5}))?(\/[^?#]*)?(?:\?([^#]*))?(?:#.*)?$/i

/** `text` as a serve address, or an error saying what is wrong with it. */
export function parseServerUrl(text: unknown): ServerAddress {
  const bad = (why: string) => new ApiError('invalid-argument', `${why}: paste the address that \`paralab serve\` printed, e.g. http://127.0.0.1:8080/paralab-8080/?token=…`)
  if (typeof text !== 'string' || text.length > 2000) throw bad('the address must be text')
  const m = ADDRESS.exec(text.trim())
  if (!m) throw bad(`"${text.slice(0, 80)}" is not an address`)
  const [, scheme, host, port, path = '/', query = ''] = m
  if (scheme.toLowerCase() !== 'http') throw bad(`serve speaks http, not ${scheme}`)
  if (!LOCAL_HOSTS.includes(host.toLowerCase())) throw bad(`${host} is not this machine: forward serve's port with ssh -L and use 127.0.0.1`)
  if (!/^[\w./-]*$/.test(path)) throw bad(`the path ${path} is not one serve prints`)
  const token = query.split('&').find((p) => p.startsWith('token='))?.slice('token='.length)
  if (!token || !/^[\w-]{8,200}$/.test(token)) throw bad('the address has no session token (?token=…)')
  const origin = `http://${host.toLowerCase()}${port ? `:${port}` : ''}`
  const base = path.endsWith('/') ? path : `${path}/`
  const where = `${origin.replace(/^http/, 'ws')}${base}api`
  return { page: `${origin}${base}?token=${token}`, socket: `${where}?token=${token}`, where, origin, base: `${origin}${base}` }
}

/** The desktop app's IPC: the dashboard asks to connect (an address) or to go back to its own backend (null). */
export const IPC_CONNECT_SERVER = 'paralab:connectServer'
/** The desktop app's menu asks the dashboard for an address to connect to. */
export const IPC_CONNECT_REQUEST = 'paralab:connect-request'
