// Ctrl-C (SIGINT) and a kill (SIGTERM: `kill`, Slurm's scancel and time limit) both cancel a
// command's work, which then ends as a cancelled run does: what finished kept, its temporary files
// and shared-memory folders removed, exit status 130. Without a handler SIGTERM would end the
// process at once and leave them behind. A second signal ends the process at once. A command whose
// launcher goes away sends itself SIGTERM (launcher-watch.ts), and so is cancelled the same way.
const SIGNALS = ['SIGINT', 'SIGTERM'] as const

/** Calls `cancel` on the first SIGINT or SIGTERM; the returned function stops listening. */
export function onInterrupt(cancel: () => void): () => void {
  const once = () => {
    stop()
    cancel()
  }
  const stop = () => {
    for (const s of SIGNALS) process.off(s, once)
  }
  for (const s of SIGNALS) process.once(s, once)
  return stop
}
