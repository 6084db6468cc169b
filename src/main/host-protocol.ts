// Requests from the desktop app's main process to its backend process: the API methods plus
// `allowFiles`, which makes files the user picked readable, and `writeRunFile`, which writes a
// run's file (exportRunFile) to the path the user chose in the save dialog. The backend process answers with
// WireMessages: replies and job events, as `paralab serve` sends them.
import type { ApiMethod } from '../shared/api'
import type { WireRequest } from '../shared/wire'

export type HostRequest = WireRequest<ApiMethod | 'allowFiles' | 'writeRunFile'>
