// Electron main process: the window, menus and dialogs. It validates every IPC request and
// forwards it to the backend process; it saves exports after asking the user where.
import { app, BrowserWindow, dialog, ipcMain, Menu, session, utilityProcess, type UtilityProcess, type WebContents } from 'electron'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Buffer } from 'node:buffer'
import { API_METHODS, type ApiMethod, type DataFile, type ExportResult } from '../shared/api'
import { ApiError } from '../shared/errors'
import { FILE_FORMATS } from '../shared/formats'
import { validateRequest } from '../shared/validate'
import { RequestTracker } from '../shared/rpc'
import { IPC_JOB_EVENT, IPC_PREFIX, type IpcReply, type WireMessage } from '../shared/wire'
import { writeFileAtomic } from './io/atomic-write'
import type { HostRequest } from './host-protocol'
import { IPC_CONNECT_REQUEST, IPC_CONNECT_SERVER } from '../shared/server-url'
import { ServerConnection } from './server-connection'
import { mayNavigate, mayUseBackend, permissionGranted, windowOpenReply, windowOptions, type Pages } from './window-security'

const here = dirname(fileURLToPath(import.meta.url))
let win: BrowserWindow | undefined

/** The backend process, started on first use and again after it exits. */
class BackendHost {
  private proc?: UtilityProcess
  private readonly requests = new RequestTracker()

  call(method: HostRequest['method'], args: unknown[]): Promise<unknown> {
    const proc = this.start()
    return this.requests.request((id) => proc.postMessage({ id, method, args } satisfies HostRequest))
  }

  stop(): void {
    this.proc?.kill()
  }

  private start(): UtilityProcess {
    if (this.proc) return this.proc
    const proc = utilityProcess.fork(join(here, 'backend-host.js'), [], { serviceName: 'Paralab backend' })
    proc.on('message', (msg: WireMessage) => {
      if ('event' in msg) win?.webContents.send(IPC_JOB_EVENT, msg.data)
      else this.requests.settle(msg)
    })
    proc.on('exit', (code) => {
      this.proc = undefined
      this.requests.failAll(new ApiError('internal', `the backend process exited (code ${code}); the next request starts a new one`))
    })
    this.proc = proc
    return proc
  }
}

const host = new BackendHost()
/** The `paralab serve` the window talks to instead of the backend process, when connected to one. */
const connection = new ServerConnection()

/** The save dialog for `fileName`: the chosen path, or null when the user cancelled. */
async function askWhere(sender: WebContents, fileName: string): Promise<string | null> {
  const owner = BrowserWindow.fromWebContents(sender)
  const ext = fileName.split('.').pop() ?? ''
  const options: Electron.SaveDialogOptions = {
    defaultPath: fileName,
    filters: [{ name: ext.toUpperCase(), extensions: [ext] }],
    properties: ['showOverwriteConfirmation', 'createDirectory'],
  }
  const choice = await (owner ? dialog.showSaveDialog(owner, options) : dialog.showSaveDialog(options))
  return choice.canceled || !choice.filePath ? null : choice.filePath
}

async function saveExport(sender: WebContents, made: ExportResult): Promise<ExportResult> {
  const path = await askWhere(sender, made.fileName)
  if (!path) return { fileName: made.fileName, mime: made.mime, cancelled: true }
  // The dialog has asked before overwriting.
  await writeFileAtomic(path, Buffer.from(made.base64 ?? '', 'base64'), { overwrite: true })
  return { fileName: made.fileName, mime: made.mime, savedPath: path }
}

/** A run's file: checked by the backend process, then written by it, as it is read, where the user chose. */
async function saveRunFile(sender: WebContents, args: unknown[]): Promise<ExportResult> {
  const checked = (await host.call('exportRunFile', args)) as ExportResult
  const path = await askWhere(sender, checked.fileName)
  if (!path) return { fileName: checked.fileName, mime: checked.mime, cancelled: true }
  await host.call('writeRunFile', [args[0], path])
  return { fileName: checked.fileName, mime: checked.mime, savedPath: path }
}

async function openFiles(sender: WebContents): Promise<DataFile[]> {
  const owner = BrowserWindow.fromWebContents(sender)
  const options: Electron.OpenDialogOptions = {
    properties: ['openFile', 'multiSelections'],
    // Every format's extensions; the chooser then decides by content which a workload reads.
    filters: [{ name: 'Data files', extensions: [...new Set(FILE_FORMATS.flatMap((f) => f.extensions))] }, { name: 'All files', extensions: ['*'] }],
  }
  const choice = await (owner ? dialog.showOpenDialog(owner, options) : dialog.showOpenDialog(options))
  if (choice.canceled) return []
  return (await host.call('allowFiles', [choice.filePaths])) as DataFile[]
}

function handleIpc(): void {
  for (const method of API_METHODS) {
    ipcMain.handle(IPC_PREFIX + method, (event, ...args: unknown[]) =>
      ipcReply(async () => {
        if (!mayUseBackend(event.senderFrame?.url, pages())) throw new ApiError('invalid-argument', 'request from a foreign page')
        validateRequest(method, args)
        return route(event.sender, method, args)
      }),
    )
  }
  // "Connect to a Paralab server…": the page reloads talking to that server (null: to this app's backend).
  ipcMain.handle(IPC_CONNECT_SERVER, (event, url: unknown) =>
    ipcReply(async () => {
      const from = event.senderFrame?.url
      if (!from || !mayNavigate(from, pages())) throw new ApiError('invalid-argument', 'request from a foreign page')
      connection.connect(url)
      await loadDashboard()
    }),
  )
  // Drag-and-drop: the preload turns dropped File objects into paths the user chose to give.
  ipcMain.handle(IPC_PREFIX + 'dropFiles', (event, paths: unknown) =>
    ipcReply(async () => {
      // A connected server's page is in this window too: only the app's own page makes local files readable.
      if (!mayUseBackend(event.senderFrame?.url, pages())) throw new ApiError('invalid-argument', 'request from a foreign page')
      if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string' || p.length === 0)) throw new ApiError('invalid-argument', 'paths must be file paths')
      return host.call('allowFiles', [paths])
    }),
  )
}

/** Runs an IPC request; its reply keeps an error's code, which ipcRenderer.invoke's rejections would lose. */
async function ipcReply(run: () => Promise<unknown>): Promise<IpcReply> {
  try {
    return { ok: await run() }
  } catch (e) {
    return { error: ApiError.from(e).toJSON() }
  }
}

async function route(sender: WebContents, method: ApiMethod, args: unknown[]): Promise<unknown> {
  switch (method) {
    case 'exportChart':
    case 'exportResults':
    case 'exportResultFile':
      return saveExport(sender, (await host.call(method, args)) as ExportResult)
    case 'exportRunFile':
      return saveRunFile(sender, args)
    case 'openFiles':
      return openFiles(sender)
    default:
      return host.call(method, args)
  }
}

const RENDERER_PAGE = pathToFileURL(join(here, '../renderer/index.html')).href

/** The pages the window may show now (window-security.ts says what each may do). */
function pages(): Pages {
  const dev = process.env.ELECTRON_RENDERER_URL
  return { app: RENDERER_PAGE, dev: dev && !app.isPackaged ? dev : undefined, server: connection.address?.base }
}

/** Loads the dashboard: the connected server's own page, or this app's. */
function loadDashboard(): Promise<void> {
  if (!win) return Promise.resolve()
  const server = connection.page()
  const dev = process.env.ELECTRON_RENDERER_URL
  if (server) return win.loadURL(server)
  if (dev && !app.isPackaged) return win.loadURL(dev)
  return win.loadFile(join(here, '../renderer/index.html'))
}

function createWindow(): void {
  win = new BrowserWindow(windowOptions(join(here, '../preload/index.cjs')))
  win.once('ready-to-show', () => win?.show())
  void loadDashboard()
}

// Every renderer is sandboxed, whatever its window's preferences say.
app.enableSandbox()

app.on('web-contents-created', (_e, contents) => {
  contents.on('will-navigate', (e) => {
    if (!mayNavigate(e.url, pages())) e.preventDefault()
  })
  // Frames inside the page (the CSP already allows only the page's own origin).
  contents.on('will-frame-navigate', (e) => {
    if (!e.isMainFrame && !mayNavigate(e.url, pages())) e.preventDefault()
  })
  contents.setWindowOpenHandler(() => windowOpenReply())
  contents.on('will-attach-webview', (e) => e.preventDefault())
})

app.whenReady().then(() => {
  // Permission requests and checks (camera, location, notifications, USB…) are refused: the dashboard needs none.
  session.defaultSession.setPermissionRequestHandler((_contents, permission, grant) => grant(permissionGranted(permission)))
  session.defaultSession.setPermissionCheckHandler((_contents, permission) => permissionGranted(permission))
  session.defaultSession.setDevicePermissionHandler(() => false)
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
      {
        label: 'File',
        submenu: [
          { label: 'Connect to a Paralab server…', click: () => win?.webContents.send(IPC_CONNECT_REQUEST) },
          {
            label: 'Use this computer',
            click: () => {
              connection.connect(null)
              void loadDashboard()
            },
          },
          { type: 'separator' },
          process.platform === 'darwin' ? { role: 'close' } : { role: 'quit' },
        ],
      },
      { role: 'editMenu' },
      { role: 'viewMenu' },
      { role: 'windowMenu' },
    ]),
  )
  handleIpc()
  createWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow()
  })
})

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})
app.on('before-quit', () => host.stop())
