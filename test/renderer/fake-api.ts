// An in-memory stand-in for the backend, implementing the dashboard's API: it records calls and lets
// a test play job events. The end-to-end tests drive the real backend; these check the dashboard.
import type { ChartExportRequest, DataFile, ExportResult, ResultsExportRequest } from '../../src/shared/api'
import type { DeviceInfo } from '../../src/shared/device'
import type { JobEvent, JobKind, JobParams } from '../../src/shared/jobs'
import type { DashboardApi } from '../../src/renderer/api/types'

export class FakeApi implements DashboardApi {
  readonly transport = 'websocket' as const
  device: DeviceInfo = { available: true, features: [], limits: {} }
  files: DataFile[] = []
  opened: DataFile[] = []
  exportAnswer: ExportResult = { fileName: 'x', mime: 'application/octet-stream', cancelled: true }
  dropFiles?: (files: File[]) => Promise<DataFile[]>

  readonly started: { kind: JobKind; params: unknown; jobId: string }[] = []
  readonly cancelled: string[] = []
  readonly chartExports: ChartExportRequest[] = []
  readonly resultExports: ResultsExportRequest[] = []
  private readonly listeners = new Set<(event: JobEvent) => void>()
  private nextJob = 1

  async deviceInfo(): Promise<DeviceInfo> {
    return this.device
  }
  async startJob<K extends JobKind>(kind: K, params: JobParams[K]): Promise<string> {
    const jobId = `job-${this.nextJob++}`
    this.started.push({ kind, params, jobId })
    return jobId
  }
  async cancelJob(jobId: string): Promise<boolean> {
    this.cancelled.push(jobId)
    return true
  }
  async exportChart(req: ChartExportRequest): Promise<ExportResult> {
    this.chartExports.push(req)
    return this.exportAnswer
  }
  async exportResults(req: ResultsExportRequest): Promise<ExportResult> {
    this.resultExports.push(req)
    return this.exportAnswer
  }
  async listDataFiles(): Promise<DataFile[]> {
    return this.files
  }
  async openFiles(): Promise<DataFile[]> {
    return this.opened
  }
  onJobEvent(listener: (event: JobEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
  onConnectionError(): () => void {
    return () => {}
  }

  /** Plays an event as the backend would send it. */
  emit(event: JobEvent): void {
    for (const listener of [...this.listeners]) listener(event)
  }
  get listenerCount(): number {
    return this.listeners.size
  }
}
