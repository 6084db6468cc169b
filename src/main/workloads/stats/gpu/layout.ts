// The statistics kernels' buffer layouts, mirrored from shaders/stats/common.wgsl.

/** Threads per workgroup of every kernel (WGSL `override WG`). */
export const WG = 256
/** Values one workgroup reads per tile of the scan (WG × PER_THREAD in sums.wgsl). */
export const SCAN_TILE = WG * 8
/** Most scan workgroups (about one wave on an H100); more tiles are walked grid-stride. */
export const MAX_SCAN_GROUPS = 1024
/** Most workgroups of a selection level (each writes two bound slots that `pick` reduces). */
export const MAX_REFINE_GROUPS = 1024
/** Histogram slices per target and level (2^RADIX_BITS). */
export const BINS = 2048
/** Keys in the sample that brackets the middle ranks, and sample ranks kept either side (select.wgsl). */
export const SAMPLE = 2048
export const MARGIN = 96
/** Levels that finish any 64-bit key range: each divides it by BINS (⌈64 / 11⌉). */
export const LEVELS = 6
/** Levels in a pass's first submit: enough for ties (2) and for spread doubles (3). */
export const FIRST_LEVELS = 3

/** Word offsets in the Params uniform (n, capacity, scan_groups and refine_groups come first). */
export const PARAMS = {
  mean: 6,
  center: 8,
  bracketLo: 10,
  bracketHi: 12,
  innerLo: 14,
  innerHi: 16,
  outerLo: 18,
  outerHi: 20,
  exact: 22,
} as const
/** Words of the Params uniform, padded to 16 bytes. */
export const PARAMS_WORDS = 24

/** Word offsets in the State struct. */
export const STATE = {
  bracketLo: 0,
  bracketHi: 2,
  below: 4,
  inside: 5,
  candidates: 6,
  compacted: 7,
  nonfinite: 8,
  error: 9,
  sumUnit: 12,
  sum: 16,
  targets: 20,
  /** Words per Target: lo (2), hi (2), rank, done, key (2). */
  targetWords: 8,
  words: 44,
} as const

/** Bytes per partial sum of a scan workgroup (two vec4<u32>). */
export const PARTIAL_BYTES = 32
/** Bytes of the bound slots of one refine workgroup (two vec4<u32>). */
export const SLOT_BYTES = 32
