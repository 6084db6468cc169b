// Exports of charts and results: a download in the browser, a saved file in the desktop app.
import { ref } from 'vue'
import type { ExportFormat, ExportResult } from '../../shared/api'
import type { WorkloadId } from '../../shared/workloads'
import type { ChartSpec } from '../../shared/charts/spec'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { downloadBase64, downloadUrl } from '../download'
import { useApi } from './api'
import { useErrorLog } from './errors'
import { usePartialRun } from './usePartialRun'
import { partialFileName } from '../../shared/workloads/partial'

export function useExport() {
  const api = useApi()
  const errors = useErrorLog()
  const partialRun = usePartialRun()
  /** Where the last export was written, for the "Saved to …" line. */
  const savedTo = ref<string | null>(null)
  const busy = ref(false)

  async function run(what: string, produce: () => Promise<ExportResult>): Promise<void> {
    busy.value = true
    savedTo.value = null
    try {
      const out = await produce()
      if (out.cancelled) return
      if (out.base64 !== undefined) downloadBase64(out.base64, out.fileName, out.mime)
      else if (out.url !== undefined) downloadUrl(out.url, out.fileName)
      else if (out.savedPath) savedTo.value = out.savedPath
    } catch (e) {
      errors.report(e, `Export of ${what} failed`)
    } finally {
      busy.value = false
    }
  }

  return {
    savedTo,
    busy,
    chart: (chart: ChartSpec, format: ExportFormat, fileName: string) =>
      run(fileName, () => api.exportChart({ chart, format, fileName })),
    /** The envelope as JSON, one of its result tables as CSV, or the run's report as one HTML file. */
    results: (envelope: ResultEnvelope, format: 'csv' | 'json' | 'html', name: string, table?: string) => {
      // A partial run's CSV says so in its name (a note line inside would break its readers); its JSON in `partial` and `missing` too.
      const fileName = partialFileName(name, envelope)
      return run(fileName, () => api.exportResults({ envelope, format, fileName, ...(table !== undefined && { table }) }))
    },
    /** A file the backend makes from a run's results (e.g. the landslide's final grid as .asc). */
    resultFile: (workload: WorkloadId, results: unknown, file: string, name: string) => {
      const fileName = partialFileName(name, partialRun.value)
      return run(fileName, () => api.exportResultFile({ workload, results, file, fileName }))
    },
    /** A file of a run the backend kept (the full matrix), written as it is read. */
    runFile: (runId: string, file: string, name: string) => {
      const fileName = partialFileName(name, partialRun.value)
      return run(fileName, () => api.exportRunFile({ run: runId, file, fileName }))
    },
  }
}
