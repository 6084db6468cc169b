// Whether the backend runs workloads on a Slurm cluster, asked once per API: every workload's form
// and the navigation need it, and it does not change while the server runs.
import { ref, type Ref } from 'vue'
import type { ParalabApi } from '../../shared/api'

const cache = new WeakMap<ParalabApi, Ref<boolean>>()

/** True once the backend says Slurm's commands are on its PATH; false until then, and on any failure. */
export function clusterAvailable(api: ParalabApi): Ref<boolean> {
  let available = cache.get(api)
  if (!available) {
    const answer = ref(false)
    available = answer
    cache.set(api, answer)
    // A backend that cannot answer (an older server, a lost connection) offers no cluster.
    api.clusterInfo().then((info) => (answer.value = info.available), () => {})
  }
  return available
}
