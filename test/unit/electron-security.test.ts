// The desktop app's Electron security settings (Electron's security checklist), asserted without
// Electron's binary: the options and handlers window-security.ts builds, and — with the `electron`
// module replaced by a recorder — that the main process (src/main/index.ts) applies exactly those.
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { GRANTED_PERMISSIONS, isAppPage, mayNavigate, mayUseBackend, permissionGranted, webPreferences, windowOpenReply, windowOptions, type Pages } from '../../src/main/window-security'
import { IPC_PREFIX, type IpcReply } from '../../src/shared/wire'
import { IPC_CONNECT_SERVER } from '../../src/shared/server-url'

const APP = 'file:///opt/Paralab/resources/app.asar/out/renderer/index.html'
const SERVER = 'http://127.0.0.1:8080/paralab-8080/'
const pages: Pages = { app: APP, server: SERVER }

/** Every permission Electron 45's handlers are asked about, which the dashboard must not get. */
const PERMISSIONS = ['media', 'display-capture', 'geolocation', 'notifications', 'clipboard-read', 'clipboard-sanitized-write', 'openExternal', 'fileSystem', 'usb', 'hid', 'serial', 'midi', 'midiSysex', 'fullscreen', 'pointerLock', 'keyboardLock', 'idle-detection', 'local-fonts', 'persistent-storage', 'storage-access', 'window-management', 'local-network-access', 'loopback-network', 'unknown']

describe('the window the main process builds', () => {
  it('isolates the page from the preload, sandboxes the renderer and gives it no Node', () => {
    expect(webPreferences('/app/out/preload/index.cjs')).toEqual({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    })
  })

  it('is hidden until ready and carries those preferences', () => {
    const options = windowOptions('/p.cjs')
    expect(options.show).toBe(false)
    expect(options.webPreferences).toEqual(webPreferences('/p.cjs'))
  })
})

describe('which pages the window shows', () => {
  it('takes the built dashboard, with any hash, for the app\'s own page, and nothing else on file:', () => {
    expect(isAppPage(APP, pages)).toBe(true)
    expect(isAppPage(`${APP}#landslide`, pages)).toBe(true)
    expect(isAppPage(`${APP}?x=1`, pages)).toBe(false)
    expect(isAppPage('file:///opt/Paralab/resources/app.asar/out/renderer/other.html', pages)).toBe(false)
    expect(isAppPage('file:///etc/passwd', pages)).toBe(false)
  })

  it('takes the dev server\'s pages only when one is given (unpackaged), by origin, not by prefix', () => {
    const dev = { ...pages, dev: 'http://localhost:5173' }
    expect(isAppPage('http://localhost:5173/#stats', dev)).toBe(true)
    expect(isAppPage('http://localhost:5173/', pages)).toBe(false)
    expect(isAppPage('http://localhost:51730/', dev)).toBe(false)
    expect(isAppPage('http://localhost:5173.evil.example/', dev)).toBe(false)
  })

  it('navigates to the app\'s page and the connected server\'s dashboard only: no remote content', () => {
    expect(mayNavigate(`${APP}#paths`, pages)).toBe(true)
    expect(mayNavigate(`${SERVER}?token=abcdefgh12`, pages)).toBe(true)
    for (const url of ['https://example.com/', 'http://127.0.0.1:8081/paralab-8080/', 'http://127.0.0.1:8080/other/', 'file:///etc/passwd', 'data:text/html,<script>1</script>', 'javascript:alert(1)', 'about:blank']) {
      expect(mayNavigate(url, pages), url).toBe(false)
    }
    expect(mayNavigate(`${SERVER}?token=abcdefgh12`, { app: APP }), 'no server connected').toBe(false)
  })

  it('answers backend requests from a live app page only: not a server\'s page, not a frame that is gone', () => {
    expect(mayUseBackend(APP, pages)).toBe(true)
    expect(mayUseBackend(`${SERVER}?token=abcdefgh12`, pages)).toBe(false)
    expect(mayUseBackend('https://example.com/', pages)).toBe(false)
    expect(mayUseBackend(undefined, pages)).toBe(false)
    expect(mayUseBackend('', pages)).toBe(false)
  })

  it('opens no windows and grants no permission', () => {
    expect(windowOpenReply()).toEqual({ action: 'deny' })
    expect(GRANTED_PERMISSIONS).toEqual([])
    for (const p of PERMISSIONS) expect(permissionGranted(p), p).toBe(false)
  })
})

// --- The main process, with `electron` recorded rather than run --------------------------------

type Listener = (...args: any[]) => unknown
const electron = vi.hoisted(() => {
  const recorded = {
    sandboxed: false,
    appListeners: new Map<string, Listener[]>(),
    windows: [] as { options: any; loaded: string[] }[],
    ipc: new Map<string, Listener>(),
    session: {} as Record<string, Listener>,
  }
  class BrowserWindow {
    readonly webContents = { send() {} }
    private readonly record: { options: any; loaded: string[] }
    constructor(options: unknown) {
      this.record = { options, loaded: [] }
      recorded.windows.push(this.record)
    }
    once() {}
    show() {}
    loadFile(path: string) {
      this.record.loaded.push(path)
      return Promise.resolve()
    }
    loadURL(url: string) {
      this.record.loaded.push(url)
      return Promise.resolve()
    }
    static getAllWindows() {
      return recorded.windows
    }
    static fromWebContents() {
      return null
    }
  }
  const handler = (name: string) => (fn: Listener) => void (recorded.session[name] = fn)
  const module = {
    app: {
      isPackaged: true,
      enableSandbox: () => void (recorded.sandboxed = true),
      on(event: string, fn: Listener) {
        recorded.appListeners.set(event, [...(recorded.appListeners.get(event) ?? []), fn])
      },
      whenReady: () => Promise.resolve(),
      quit() {},
    },
    BrowserWindow,
    dialog: {},
    ipcMain: { handle: (channel: string, fn: Listener) => void recorded.ipc.set(channel, fn) },
    Menu: { setApplicationMenu() {}, buildFromTemplate: (t: unknown) => t },
    session: {
      defaultSession: {
        setPermissionRequestHandler: handler('request'),
        setPermissionCheckHandler: handler('check'),
        setDevicePermissionHandler: handler('device'),
      },
    },
    utilityProcess: {
      fork() {
        throw new Error('no backend process in this test')
      },
    },
  }
  return { recorded, module }
})
vi.mock('electron', () => electron.module)

describe('the main process (src/main/index.ts)', () => {
  const { recorded } = electron
  const appPage = pathToFileURL(resolve('src/renderer/index.html')).href

  beforeAll(async () => {
    await import('../../src/main/index')
    await vi.waitFor(() => expect(recorded.windows).toHaveLength(1))
  })

  it('sandboxes every renderer and builds its window from windowOptions, loading the built dashboard', () => {
    expect(recorded.sandboxed).toBe(true)
    expect(recorded.windows[0].options).toEqual(windowOptions(join(resolve('src/main'), '../preload/index.cjs')))
    expect(recorded.windows[0].loaded).toEqual([resolve('src/renderer/index.html')])
  })

  it('refuses every permission request, check and device request', () => {
    const grants: boolean[] = []
    for (const p of PERMISSIONS) recorded.session.request(null, p, (granted: boolean) => grants.push(granted), {})
    expect(grants).toEqual(PERMISSIONS.map(() => false))
    for (const p of PERMISSIONS) expect(recorded.session.check(null, p, 'file://', {}), p).toBe(false)
    expect(recorded.session.device({ deviceType: 'usb', origin: 'file://' })).toBe(false)
  })

  it('limits every web contents\' navigation, denies new windows and webviews', () => {
    const listeners = new Map<string, Listener>()
    let openHandler: Listener | undefined
    const contents = { on: (event: string, fn: Listener) => void listeners.set(event, fn), setWindowOpenHandler: (fn: Listener) => void (openHandler = fn) }
    for (const fn of recorded.appListeners.get('web-contents-created') ?? []) fn({}, contents)

    const navigate = (event: string, details: object) => {
      const e = { ...details, preventDefault: vi.fn() }
      listeners.get(event)!(e, (details as { url: string }).url)
      return e.preventDefault.mock.calls.length > 0
    }
    expect(navigate('will-navigate', { url: 'https://example.com/' }), 'remote page').toBe(true)
    expect(navigate('will-navigate', { url: 'file:///etc/passwd' }), 'another file').toBe(true)
    expect(navigate('will-navigate', { url: `${appPage}#stats` }), 'own page').toBe(false)
    expect(navigate('will-frame-navigate', { url: 'https://example.com/', isMainFrame: false }), 'frame to a remote page').toBe(true)
    expect(openHandler!({ url: 'https://example.com/' })).toEqual({ action: 'deny' })
    const attach = { preventDefault: vi.fn() }
    listeners.get('will-attach-webview')!(attach)
    expect(attach.preventDefault).toHaveBeenCalled()
  })

  it('answers the backend\'s IPC only from the app\'s own live page', async () => {
    const ask = async (channel: string, url: string | undefined, ...args: unknown[]) =>
      (await recorded.ipc.get(channel)!({ senderFrame: url === undefined ? null : { url }, sender: {} }, ...args)) as IpcReply
    const foreign = { error: expect.objectContaining({ code: 'invalid-argument', message: 'request from a foreign page' }) }
    expect(await ask(`${IPC_PREFIX}listRuns`, 'https://example.com/')).toEqual(foreign)
    expect(await ask(`${IPC_PREFIX}listRuns`, undefined), 'a frame that is gone').toEqual(foreign)
    expect(await ask(`${IPC_PREFIX}dropFiles`, `${SERVER}?token=abcdefgh12`, ['/etc/passwd'])).toEqual(foreign)
    expect(await ask(IPC_CONNECT_SERVER, 'https://example.com/', null)).toEqual(foreign)
    // From the app's page the request passes the gate, and is then checked for what it asks.
    expect(await ask(`${IPC_PREFIX}dropFiles`, appPage, [42])).toEqual({ error: expect.objectContaining({ code: 'invalid-argument', message: 'paths must be file paths' }) })
  })
})
