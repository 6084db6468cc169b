// @vitest-environment happy-dom
// The desktop app's "Connect to a Paralab server…", as far as it runs without Electron: the address
// read the same way by the dialog and the main process, the app's own page on IPC and a server's
// page (which the connected window loads) on that server's WebSocket, both able to switch, the
// dialog, and which pages the main process takes for the connected server's.
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
  vi.unstubAllGlobals()
  document.body.innerHTML = ''
})

describe('a serve address', () => {
  it('is read from what serve printed: its socket, origin and token', () => {
    expect(parseServerUrl(PRINTED)).toEqual({
      page: PRINTED,
      socket: 'ws://127.0.0.1:8080/paralab-8080/api?token=Zk3_x-9aQw8fGh2JkLmNoPqRsTuV',
      where: 'ws://127.0.0.1:8080/paralab-8080/api',
      origin: 'http://127.0.0.1:8080',
      base: 'http://127.0.0.1:8080/paralab-8080/',
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

/** A window of the desktop app at `href` (its own page, or a server's): its preload, and a WebSocket that records where it goes. */
function desktopWindow(href: string, preload = bridge()) {
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
  vi.stubGlobal('WebSocket', RecordingSocket)
  const url = new URL(href)
  const win = { paralab: preload, location: { search: url.search, href, protocol: url.protocol } } as unknown as Window
  return { win, sockets, preload }
}

describe('the desktop dashboard', () => {
  it('talks to its own backend over IPC until connected, and can connect', async () => {
    const { win, sockets, preload } = desktopWindow('file:///app/out/renderer/index.html#stats')
    const api = createApi(win)
    expect(api.transport).toBe('electron')
    expect(api.server).toBeUndefined()
    expect(sockets).toEqual([])
    await api.connectServer!(PRINTED)
    expect(preload.connects).toEqual([PRINTED])
  })

  it('on a server\'s page, talks to that server over its WebSocket, and can go back', async () => {
    const { win, sockets, preload } = desktopWindow(`${PRINTED}#cluster`)
    const api = createApi(win)
    expect(api.transport).toBe('websocket')
    expect(api.server).toBe('ws://127.0.0.1:8080/paralab-8080/api')
    expect(sockets).toEqual(['ws://127.0.0.1:8080/paralab-8080/api?token=Zk3_x-9aQw8fGh2JkLmNoPqRsTuV'])
    await api.connectServer!(null)
    expect(preload.connects).toEqual([null])
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
  it('loads the connected server\'s page, and takes only that server\'s pages for its own', () => {
    const c = new ServerConnection()
    expect(c.page()).toBeNull()
    expect(c.isServerPage('http://127.0.0.1:8080/paralab-8080/?token=abc')).toBe(false)
    c.connect(PRINTED)
    expect(c.page()).toBe(PRINTED)
    expect(c.isServerPage(`${PRINTED}#cluster`)).toBe(true)
    // Another local service, or another path of this one, is not the server's dashboard.
    expect(c.isServerPage('http://127.0.0.1:9999/paralab-9999/?token=abc')).toBe(false)
    expect(c.isServerPage('http://127.0.0.1:8080/other/')).toBe(false)
    expect(() => c.connect('http://evil.example/?token=abcdefgh12')).toThrow(/not this machine/)
    c.connect(null)
    expect(c.page()).toBeNull()
    expect(c.isServerPage(PRINTED)).toBe(false)
  })
})
