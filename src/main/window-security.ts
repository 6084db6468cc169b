// The desktop window's security settings (Electron's security checklist), as data and pure
// functions: the main process applies exactly these, and tests assert them without Electron's
// binary. Only Electron's types are imported here, never the module itself.
import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron'

/** The renderer's preferences: the page reaches nothing but what the preload exposes through the context bridge. */
export function webPreferences(preload: string): WebPreferences {
  return {
    preload,
    // The preload's JavaScript world is apart from the page's, and the renderer is a Chromium sandbox:
    // the preload itself has no Node, only Electron's ipcRenderer, contextBridge and webUtils.
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    // A file dropped beside the drop zone must not replace the dashboard with the file.
    navigateOnDragDrop: false,
  }
}

/** The dashboard window. */
export function windowOptions(preload: string): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 880,
    minWidth: 960,
    minHeight: 640,
    title: 'Paralab',
    show: false,
    webPreferences: webPreferences(preload),
  }
}

/** The pages the window may show: nothing else is loaded, navigated to, or answered over IPC. */
export interface Pages {
  /** The built dashboard's file: URL. */
  app: string
  /** electron-vite's dev server, only when the app is run unpackaged from source. */
  dev?: string
  /** The connected `paralab serve`'s dashboard (its base, e.g. http://127.0.0.1:8080/paralab-8080/). */
  server?: string
}

/** Whether `url` is the app's own dashboard (with any hash), or the dev server's: the pages that may use the local backend. */
export function isAppPage(url: string, pages: Pages): boolean {
  if (url.split('#')[0] === pages.app) return true
  return !!pages.dev && sameOrigin(url, pages.dev)
}

/** Whether the window may navigate to `url`: the app's dashboard, or the connected server's. No remote content. */
export function mayNavigate(url: string, pages: Pages): boolean {
  return isAppPage(url, pages) || (!!pages.server && url.startsWith(pages.server))
}

/**
 * Whether an IPC request from the frame at `url` is answered. A frame that has navigated away or is
 * gone (Electron gives no URL, or null for the frame, since 33) is not: only a live app page is.
 */
export function mayUseBackend(url: string | undefined, pages: Pages): boolean {
  return !!url && isAppPage(url, pages)
}

/** window.open and target=_blank: the dashboard opens no windows. */
export function windowOpenReply(): { action: 'deny' } {
  return { action: 'deny' }
}

/**
 * Permissions granted to the window's pages (camera, location, notifications, clipboard reading,
 * USB, HID, serial, opening external URLs…): none. The dashboard needs none, so every request and
 * every check is refused, including those from a connected server's page.
 */
export const GRANTED_PERMISSIONS: readonly string[] = []

export function permissionGranted(permission: string): boolean {
  return GRANTED_PERMISSIONS.includes(permission)
}

function sameOrigin(url: string, other: string): boolean {
  try {
    return new URL(url).origin === new URL(other).origin
  } catch {
    return false
  }
}
