// Ctrl-C (SIGINT) and a kill (SIGTERM: `kill`, Slurm's scancel and time limit) both cancel a
// command's work, which then ends as a cancelled run does: what finished kept, its temporary files
// and shared-memory folders removed, exit status 130. Without a handler SIGTERM would end the
// process at once and leave them behind. A second signal ends the process at once. The command's
// launcher going away (launcher-watch.ts) cancels it likewise, and ends the process if the cancel
// has not within ORPHAN_GRACE_MS: nobody is left to send the second signal.
import { watchLaunchers } from './launcher-watch'

const SIGNALS = ['SIGINT', 'SIGTERM'] as const
const ORPHAN_GRACE_MS = 10_000

/** Calls `cancel` on the first SIGINT or SIGTERM, or when the command's launcher ends; the returned function stops listening. */
export function onInterrupt(cancel: () => void): () => void {
  const once = () => {
    stop()
    cancel()
  }
  const unwatch = watchLaunchers((which) => {
    // The launcher may have held the other end of stderr: a write there then fails, which must not end the cancel.
    process.stderr.on('error', () => {})
    process.stderr.write(`paralab: ${which}: cancelling\n`)
    once()
    setTimeout(() => process.exit(130), ORPHAN_GRACE_MS).unref()
  })
  const stop = () => {
    unwatch()
    for (const s of SIGNALS) process.off(s, once)
  }
  for (const s of SIGNALS) process.once(s, once)
  return stop
}
