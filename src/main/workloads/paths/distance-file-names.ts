// The files the dashboard downloads of a paths run it kept (distance-files.ts makes them): in a
// module of their own, so the command list loads the names without the readers.
/** The files offered, as messages show them. */
export const DISTANCE_FILES = ['distances-<graph>.npy', 'distances-<graph>.csv', 'distances-<graph>.mtx'] as const
/** The names they stand for: graph k of the run (from 0), in one of the formats. */
export const DISTANCE_FILE = /^distances-(\d{1,6})\.(npy|csv|mtx)$/
