// The files the dashboard downloads of a correlation run it kept (kept-matrix.ts makes them): in a
// module of their own, so the command list loads the names without the readers.
export const MATRIX_FILES = ['matrix.npy', 'matrix.csv'] as const
