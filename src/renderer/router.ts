// The views of the dashboard and which one shows, kept in the address's #hash so a reload stays put.
import { ref } from 'vue'

export const VIEWS = [
  { id: 'device', label: 'Device', hint: 'GPU adapter, limits and a bandwidth/FLOP benchmark' },
  { id: 'stats', label: 'Statistics', hint: 'Accelerometer CSV: CV and MAD per column on every backend' },
] as const
export type ViewId = (typeof VIEWS)[number]['id']

function fromHash(hash: string): ViewId {
  const id = hash.replace(/^#\/?/, '')
  return VIEWS.find((v) => v.id === id)?.id ?? VIEWS[0].id
}

export function createRouter(win: Window = window) {
  const current = ref<ViewId>(fromHash(win.location.hash))
  const sync = () => (current.value = fromHash(win.location.hash))
  win.addEventListener('hashchange', sync)
  return {
    current,
    navigate(id: ViewId) {
      current.value = id
      if (win.location.hash !== `#${id}`) win.location.hash = id
    },
    dispose: () => win.removeEventListener('hashchange', sync),
  }
}
