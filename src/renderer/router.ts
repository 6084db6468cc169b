// Which workload view shows, kept in the address's #hash so a reload stays put.
import { ref } from 'vue'
import type { WorkloadId } from '../shared/workloads'
import { VIEWS } from './workloads'

function fromHash(hash: string): WorkloadId {
  const id = hash.replace(/^#\/?/, '')
  return VIEWS.find((v) => v.id === id)?.id ?? VIEWS[0].id
}

export function createRouter(win: Window = window) {
  const current = ref<WorkloadId>(fromHash(win.location.hash))
  const sync = () => (current.value = fromHash(win.location.hash))
  win.addEventListener('hashchange', sync)
  return {
    current,
    navigate(id: WorkloadId) {
      current.value = id
      if (win.location.hash !== `#${id}`) win.location.hash = id
    },
    dispose: () => win.removeEventListener('hashchange', sync),
  }
}
