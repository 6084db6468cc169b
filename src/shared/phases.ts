// Phases every workload may report, whatever its own: what the dashboard and the engines agree on.

/**
 * The phase in which a GPU job compiles its kernels, before any timed run: its time is reported
 * apart (`compile_ms`), never in a timing, and says nothing about how fast the rest will go.
 */
export const COMPILING_KERNELS = 'compiling kernels'

/** Phases whose time does no measured work: a job's pace, and so its time left, is estimated outside them. */
export function unpacedPhase(phase: string): boolean {
  return phase.startsWith(COMPILING_KERNELS) || phase.startsWith('warming up')
}
