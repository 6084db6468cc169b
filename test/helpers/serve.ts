// Starts the built `paralab serve` as a child process, as a user would, and stops it afterwards.
import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'

export const CLI = resolve(__dirname, '../../out/main/cli.js')

export interface ServeProcess {
  /** The printed address: the dashboard with the session token. */
  url: string
  origin: string
  /** Where the dashboard lives, e.g. http://127.0.0.1:1234/paralab-1234/ (its API socket is `${base}api`). */
  base: string
  /** The API socket's address, without the token. */
  api: string
  token: string
  /** The server's process id (for its memory and open files under /proc). */
  pid: number
  stop(): Promise<void>
  stderr(): string
}

export async function startServe(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr!.on('data', (d) => (err += d))
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${err}`)), 30_000)
    child.stdout!.on('data', (d) => {
      out += d
      const m = /(http:\/\/127\.0\.0\.1:\d+\/paralab-\d+\/\?token=[\w-]+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        ok(m[1])
      }
    })
    child.once('exit', (code) => fail(new Error(`serve exited with ${code}: ${err}`)))
  })
  const u = new URL(url)
  return {
    url,
    origin: u.origin,
    base: u.origin + u.pathname,
    api: (u.origin + u.pathname).replace(/^http/, 'ws') + 'api',
    token: u.searchParams.get('token')!,
    pid: child.pid!,
    stderr: () => err,
    stop: () =>
      new Promise((ok) => {
        if (child.exitCode !== null) return ok()
        child.once('exit', () => ok())
        child.kill('SIGTERM')
        setTimeout(() => child.kill('SIGKILL'), 5000).unref()
      }),
  }
}
