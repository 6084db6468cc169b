// @vitest-environment happy-dom
// The desktop app's "Connect to a Paralab server…", as far as it runs without Electron: the address
// read the same way by the page and the main process, the page talking to the server over its
// WebSocket once loaded with the server's address, the dialog, and the main process's handshake
// Origin for the connected server's socket.
import { flushPromises } from '@vue/test-utils'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parseServerUrl } from '../../src/shared/server-url'
import { createApi } from '../../src/renderer/api'
import type { PreloadApi } from '../../src/renderer/api/types'
import ServerConnect from '../../src/renderer/cluster/ServerConnect.vue'
import { ServerConnection } from '../../src/main/server-connection'
import { FakeApi } from './fake-api'
import { mountWith } from './mount'

const PRINTED = 'http://127.0.0.1:8080/paralab-8080/?token=Zk3_x-9aQw8fGh2JkLmNoPqRsTuV'

afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('a serve address', () => {
  it('is read from what serve printed: its socket, origin and token', () => {
    expect(parseServerUrl(PRINTED)).toEqual({
      page: PRINTED,
      socket: 'ws://127.0.0.1:8080/paralab-8080/api?token=Zk3_x-9aQw8fGh2JkLmNoPqRsTuV',
      where: 'ws://127.0.0.1:8080/paralab-8080/api',
      origin: 'http://127.0.0.1:8080',
    })
    expect(parseServerUrl(' http://localhost:9000/paralab-9000?token=abcdefgh12#cluster ').where).toBe('ws://localhost:9000/paralab-9000/api')
  })

  it('is refused, with the reason, when it is not a local serve with its token', () => {
    const cases: [unknown, RegExp][] = [
      ['http://login1.cluster.edu:8080/paralab-8080/?token=abcdefgh12', /login1\.cluster\.edu is not this machine: forward serve's port with ssh -L/],
      ['https://127.0.0.1:8080/paralab-8080/?token=abcdefgh12', /serve speaks http, not https/],
      ['http://127.0.0.1:8080/paralab-8080/', /no session token/],
      ['http://127.0.0.1:8080/paralab-8080/?token=a"b', /no session token/],
      ['127.0.0.1:8080', /is not an address/],
      [42, /must be text/],
    ]
    for (const [text, message] of cases) expect(() => parseServerUrl(text), String(text)).toThrow(message)
  })
})

/** A preload bridge that records what it is asked. */
function bridge(): PreloadApi & { connects: (string | null)[]; menu?: () => void } {
  const b = new FakeApi() as unknown as PreloadApi & { connects: (string | null)[]; menu?: () => void }
  b.connects = []
  b.connectServer = async (url) => void b.connects.push(url)
  b.onConnectRequest = (listener) => {
    b.menu = listener
    return () => (b.menu = undefined)
  }
  return b
}

/** A window as the desktop app loads the dashboard: its preload, its address's query, and a WebSocket that records where it goes. */
function desktopWindow(search: string, preload = bridge()) {
  const sockets: string[] = []
  class RecordingSocket {
    readyState = 0
    constructor(url: string) {
      sockets.push(url)
    }
    send() {}
    close() {}
    addEventListener() {}
  }
  const win = { paralab: preload, location: { search, href: `file:///app/out/renderer/index.html${search}`, protocol: 'file:' }, WebSocket: RecordingSocket } as unknown as Window
  return { win, sockets, preload }
}

describe('the desktop dashboard', () => {
  it('talks to its own backend over IPC until connected, and can connect', async () => {
    const { win, sockets, preload } = desktopWindow('')
    const api = createApi(win)
    expect(api.transport).toBe('electron')
    expect(api.server).toBeUndefined()
    expect(sockets).toEqual([])
    await api.connectServer!(PRINTED)
    expect(preload.connects).toEqual([PRINTED])
  })

  it('loaded with a server\'s address, talks to that server over its WebSocket, and can go back', async () => {
    const { win, sockets, preload } = desktopWindow(`?server=${encodeURIComponent(PRINTED)}`)
    const api = createApi(win)
    expect(api.transport).toBe('websocket')
    expect(api.server).toBe('ws://127.0.0.1:8080/paralab-8080/api')
    expect(sockets).toEqual(['ws://127.0.0.1:8080/paralab-8080/api?token=Zk3_x-9aQw8fGh2JkLmNoPqRsTuV'])
    await api.connectServer!(null)
    expect(preload.connects).toEqual([null])
  })

  it('loaded with an address that is not a serve\'s, says why on every call and can still go back', async () => {
    const { win, sockets } = desktopWindow(`?server=${encodeURIComponent('http://example.org/?token=abcdefgh12')}`)
    const api = createApi(win)
    expect(sockets).toEqual([])
    await expect(api.listRuns()).rejects.toThrow(/example\.org is not this machine/)
    expect(api.connectServer).toBeDefined()
  })
})

describe('Connect to a Paralab server…', () => {
  it('is there only in the desktop app', () => {
    const { wrapper } = mountWith(ServerConnect, new FakeApi())
    expect(wrapper.find('[data-testid="server-connect"]').exists()).toBe(false)
  })

  it('asks for the address (also from the menu), names a bad one, and connects with a good one', async () => {
    const api = new FakeApi() as FakeApi & { connectServer?(url: string | null): Promise<void>; onConnectRequest?(l: () => void): () => void }
    const connects: (string | null)[] = []
    let menu: (() => void) | undefined
    api.connectServer = async (url) => void connects.push(url)
    api.onConnectRequest = (listener) => ((menu = listener), () => (menu = undefined))
    const { wrapper } = mountWith(ServerConnect, api)
    expect(wrapper.find('[data-testid="server-dialog"]').exists()).toBe(false)
    menu!()
    await flushPromises()
    expect(wrapper.find('[data-testid="server-dialog"]').exists()).toBe(true)
    await wrapper.get('[data-testid="server-address"]').setValue('http://login1:8080/paralab-8080/?token=abcdefgh12')
    await wrapper.get('[data-testid="server-dialog"]').trigger('submit')
    await flushPromises()
    expect(wrapper.get('[data-testid="server-problem"]').text()).toMatch(/login1 is not this machine/)
    expect(connects).toEqual([])
    await wrapper.get('[data-testid="server-address"]').setValue(PRINTED)
    await wrapper.get('[data-testid="server-dialog"]').trigger('submit')
    await flushPromises()
    expect(connects).toEqual([PRINTED])
    wrapper.unmount()
    expect(menu).toBeUndefined()
  })

  it('connected, names the server and goes back to this computer', async () => {
    const api = Object.assign(new FakeApi(), { server: 'ws://127.0.0.1:8080/paralab-8080/api', connects: [] as (string | null)[] })
    Object.assign(api, { connectServer: async (url: string | null) => void api.connects.push(url) })
    const { wrapper } = mountWith(ServerConnect, api)
    expect(wrapper.get('[data-testid="server-where"]').text()).toBe('127.0.0.1:8080/paralab-8080')
    await wrapper.get('[data-testid="server-disconnect"]').trigger('click')
    await flushPromises()
    expect(api.connects).toEqual([null])
  })
})

describe('the main process\'s connection', () => {
  it('gives the connected server\'s socket handshake that server\'s origin, and nothing else', () => {
    const c = new ServerConnection()
    const headers = { Origin: 'file://', 'User-Agent': 'x' }
    expect(c.headers('ws://127.0.0.1:8080/paralab-8080/api?token=abc', headers)).toBe(headers)
    expect(c.pageQuery()).toEqual({})
    c.connect(PRINTED)
    expect(c.pageQuery()).toEqual({ server: PRINTED })
    expect(c.headers('ws://127.0.0.1:8080/paralab-8080/api?token=Zk3', headers)).toEqual({ Origin: 'http://127.0.0.1:8080', 'User-Agent': 'x' })
    // Another local service, or another path of this one, keeps the page's own origin.
    expect(c.headers('ws://127.0.0.1:9999/paralab-9999/api?token=Zk3', headers)).toBe(headers)
    expect(c.headers('http://127.0.0.1:8080/paralab-8080/api?token=Zk3', headers)).toBe(headers)
    expect(() => c.connect('http://evil.example/?token=abcdefgh12')).toThrow(/not this machine/)
    c.connect(null)
    expect(c.pageQuery()).toEqual({})
  })
})
