// The adapter description, asked once per API: several views need it and it does not change.
import type { DeviceInfo } from '../../shared/device'
import type { ParalabApi } from '../../shared/api'

const cache = new WeakMap<ParalabApi, Promise<DeviceInfo>>()

export function deviceInfoOnce(api: ParalabApi): Promise<DeviceInfo> {
  let info = cache.get(api)
  if (!info) {
    info = api.deviceInfo()
    // A failure is not remembered: the next view to ask tries again.
    info.catch(() => cache.delete(api))
    cache.set(api, info)
  }
  return info
}
