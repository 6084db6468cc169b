// A command whose launcher goes away stops, rather than computing on as an orphan nobody waits for:
// `timeout 580 npx paralab …` kills npx, whose shell and this process would otherwise go on. The
// launchers are this process's ancestors in its own process group (npx, its shell, a script, timeout:
// what started it and would be waited on), read from /proc; one gone, or adopted by another process,
// means the run's caller is gone. A shell with job control starts each command in a group of its
// own, so a command started from a terminal watches no launcher (closing the terminal sends it
// SIGHUP), and `setsid paralab …` or `nohup` from a terminal runs on as asked. Where /proc is
// missing (macOS) the parent alone is watched, through process.ppid. Every command watches them
// (cli.ts): one gone, the process sends itself SIGTERM, which a job takes as a cancel
// (interrupt.ts) and any other command as the end; it exits after ORPHAN_GRACE_MS however that goes,
// since nobody is left to send the second signal.
import { readFileSync } from 'node:fs'

/** How often the launchers are looked at. */
const POLL_MS = 1000
/** How long a command whose launcher ended has to finish cancelling. */
const ORPHAN_GRACE_MS = 10_000

interface Proc {
  pid: number
  ppid: number
  pgrp: number
  name: string
}

/** A process's parent, group and name from /proc/<pid>/stat; null when it is gone or unreadable. */
function procStat(pid: number | 'self'): Proc | null {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1')
  } catch {
    return null
  }
  // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses: it ends at the last ')'.
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return null
  const fields = text.slice(close + 2).split(' ')
  return { pid: Number(text.slice(0, open)), name: text.slice(open + 1, close), ppid: Number(fields[1]), pgrp: Number(fields[2]) }
}

/** This process's launchers: its ancestors within its process group, nearest first (each with the parent it had). */
export function launchers(): Proc[] {
  const self = procStat('self')
  if (!self) return []
  const found: Proc[] = []
  for (let p = procStat(self.ppid); p && p.pid > 1 && p.pgrp === self.pgrp && found.length < 64; p = procStat(p.ppid)) found.push(p)
  return found
}

/**
 * Calls `gone` once, with a sentence naming it, when a launcher ends or is adopted (its parent
 * gone); the returned function stops watching.
 */
export function watchLaunchers(gone: (which: string) => void): () => void {
  const watched = launchers()
  const parent = process.ppid
  const withProc = procStat('self') !== null
  const timer = setInterval(() => {
    let which: string | undefined
    if (!withProc && process.ppid !== parent) which = `its parent (pid ${parent}) ended`
    for (const w of watched) {
      const now = procStat(w.pid)
      if (!now || now.name !== w.name) which = `its launcher ${w.name} (pid ${w.pid}) ended`
      else if (now.ppid !== w.ppid) which = `its launcher ${w.name} (pid ${w.pid}) lost its own parent (pid ${w.ppid})`
      if (which) break
    }
    if (which === undefined) return
    clearInterval(timer)
    gone(which)
  }, POLL_MS)
  // Watching keeps no process alive: its work does.
  timer.unref()
  return () => clearInterval(timer)
}

/** Every command's watch: its launcher gone, it stops as on SIGTERM (and exits 130 after ORPHAN_GRACE_MS at the latest). */
export function stopWhenLaunchersEnd(): () => void {
  return watchLaunchers((which) => {
    // The launcher may have held the other end of stderr: a write there then fails, which must not end the cancel.
    process.stderr.on('error', () => {})
    process.stderr.write(`paralab: ${which}: stopping as on SIGTERM\n`)
    setTimeout(() => process.exit(130), ORPHAN_GRACE_MS).unref()
    process.kill(process.pid, 'SIGTERM')
  })
}
