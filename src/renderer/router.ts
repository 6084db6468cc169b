// Which page shows — a workload view, or the Cluster page — kept in the address's #hash so a reload stays put.
import { ref } from 'vue'
import type { WorkloadId } from '../shared/workloads'
import { CLUSTER_PAGE } from './cluster/page'
import { VIEWS } from './workloads'

export type PageId = WorkloadId | typeof CLUSTER_PAGE.id

function fromHash(hash: string): PageId {
  const id = hash.replace(/^#\/?/, '')
  if (id === CLUSTER_PAGE.id) return CLUSTER_PAGE.id
  return VIEWS.find((v) => v.id === id)?.id ?? VIEWS[0].id
}

export function createRouter(win: Window = window) {
  const current = ref<PageId>(fromHash(win.location.hash))
  const sync = () => (current.value = fromHash(win.location.hash))
  win.addEventListener('hashchange', sync)
  return {
    current,
    navigate(id: PageId) {
      current.value = id
      if (win.location.hash !== `#${id}`) win.location.hash = id
    },
    dispose: () => win.removeEventListener('hashchange', sync),
  }
}
