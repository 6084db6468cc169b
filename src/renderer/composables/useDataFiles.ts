// The files a picker offers: the backend's data files, an example's input, files the user opened
// (the desktop app's dialog, or the chooser over `paralab serve`'s data folders) or dropped.
// Offering a file never chooses it: only the user's ticks do.
import { computed, onMounted, onUnmounted, ref, shallowRef, watch, type Ref } from 'vue'
import type { DataFile } from '../../shared/api'
import { canRead, groupFiles, hasExtension, pathOnly, type KnownFile } from '../data-files'
import { useApi } from './api'
import { useErrorLog } from './errors'

export interface DataFileOptions {
  /** The workload: its formats decide, by content, which files it reads. */
  workload: string
  /** The extensions the workload reads: the list shows those files (and files whose content it reads), and others only where the user opened them. */
  extensions: readonly string[]
  /** The example's input files: listed in a group of their own. */
  example: () => DataFile[] | undefined
  /** Paths the form holds: always listed, so that nothing chosen is out of sight. */
  selected: () => readonly string[]
}

export function useDataFiles(opts: DataFileOptions) {
  const api = useApi()
  const errors = useErrorLog()
  const files = ref<DataFile[]>([])
  const loading = ref(true)
  /** Paths the user opened or dropped: listed even where the workload cannot read them, greyed out. */
  const handed = ref(new Set<string>())
  /** Whether the chooser over the data folders is open (serve), and who waits for its answer. */
  const choosing = ref(false)
  let answer: ((files: DataFile[]) => void) | null = null

  /** When the backend last listed the data files (null until it has). */
  const listedAt = ref<Date | null>(null)
  let listing: Promise<void> | null = null

  /**
   * Lists the data files again: files made since appear, files gone disappear (unless the user
   * handed them over or an example's run made them). The window coming back into focus lists them
   * too, so a file written meanwhile (by numpy, GDAL, another run) is there when the user looks.
   */
  function refresh(): Promise<void> {
    listing ??= (async () => {
      try {
        const fresh = await api.listDataFiles()
        const kept = files.value.filter((f) => handed.value.has(f.path) || examplePaths.value.has(f.path))
        files.value = []
        add([...kept, ...fresh])
        listedAt.value = new Date()
      } catch (e) {
        errors.report(e, 'Could not list the data files')
      } finally {
        loading.value = false
        listing = null
      }
    })()
    return listing
  }
  const onFocus = () => void refresh()
  onMounted(() => {
    void refresh()
    window.addEventListener('focus', onFocus)
  })
  onUnmounted(() => window.removeEventListener('focus', onFocus))

  function add(more: DataFile[]): void {
    const known = new Map(files.value.map((f) => [f.path, f]))
    // A file listed again comes with what the backend knows now (its data folder, its size).
    for (const f of more) known.set(f.path, f)
    files.value = [...known.values()]
  }

  const examplePaths = shallowRef<ReadonlySet<string>>(new Set())
  watch(opts.example, (more) => {
    if (!more) return
    add(more)
    examplePaths.value = new Set(more.map((f) => f.path))
  })

  const groups = computed(() => {
    const listed = files.value.filter((f) => hasExtension(f.name, opts.extensions) || canRead(opts, f) || handed.value.has(f.path))
    const paths = new Set(listed.map((f) => f.path))
    const unlisted: KnownFile[] = opts
      .selected()
      .filter((p) => !paths.has(p))
      .map((p) => files.value.find((f) => f.path === p) ?? pathOnly(p))
    return groupFiles([...listed, ...unlisted], opts, examplePaths.value)
  })

  /** Files the user picks: the desktop dialog, or the chooser over the data folders. Resolves with them ([] when cancelled). */
  async function open(): Promise<DataFile[]> {
    if (api.transport === 'websocket') {
      choosing.value = true
      return new Promise((resolve) => (answer = resolve))
    }
    try {
      return hand(await api.openFiles())
    } catch (e) {
      errors.report(e, 'Could not open files')
      return []
    }
  }

  /** The chooser's answer: the files ticked there, or [] when it was closed. */
  function chosen(picked: DataFile[]): void {
    choosing.value = false
    answer?.(hand(picked))
    answer = null
  }

  /** Lists files the user handed over (opened, chosen, dropped); returns them. */
  function hand(picked: DataFile[]): DataFile[] {
    add(picked)
    handed.value = new Set([...handed.value, ...picked.map((f) => f.path)])
    return picked
  }

  return { files: files as Ref<DataFile[]>, groups, loading, listedAt, refresh, choosing, open, chosen, hand }
}
