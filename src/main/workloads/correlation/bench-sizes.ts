// The sizes `bench correlation` runs at, known to its help before the bench loads.

export const BENCH_SIZE = { series: 2048, length: 8192 }
/** The study's size: its serial C took 2.0 s for steps 1–5. */
export const STUDY_SIZE = { series: 8192, length: 8192 }
