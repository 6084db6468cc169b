// A part of `paths --gpus N` in a process of its own (part-links.ts starts it, fenced onto its GPU
// where the host allows it): opens the process's GPU and answers its parent over Node's IPC channel.
// It lives only as long as that channel: when the parent goes, so does the part.
import { getGpu } from '../../../gpu/runtime'
import { PartHost, type ToPart } from './part-host'

if (!process.send) {
  process.stderr.write('a paths part is started by paralab, with an IPC channel to it\n')
  process.exit(2)
}
const host = new PartHost(getGpu, (m) => {
  if (process.connected) process.send!(m)
})
process.on('message', (m) => host.onMessage(m as ToPart))
process.on('disconnect', () => process.exit(0))
