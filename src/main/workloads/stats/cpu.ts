// Accelerometer statistics (CV and MAD per column) on the CPU, and the sort-free pieces a GPU
// engine reuses: order-preserving keys, the radix-select driver, statistics from integer counts.
export { CPU_STATS_BACKENDS, type CpuStatsBackend, type CpuStatsEngine, type CpuStatsEngineOptions, type PreparedColumn } from './cpu-engine'
export { computeColumnStats, createCpuStatsEngine } from './cpu-engine'
export { referenceColumnStats } from './reference'
export { type CompensatedSum, addF32, addF64, combineSums } from './compensated'
export { type IntegerCounts, countedMad, countedMedian, countedSquaredDeviation, countedStats } from './counting'
export { absDeviation, finishStats, middleRanks, midpoint } from './definitions'
export {
  DIGIT_BINS,
  DIGIT_BITS,
  type Key,
  compareKeys,
  f32ToKey,
  f64ToKey,
  keyDigit,
  keyLevels,
  keyToF32,
  keyToF64,
  keyToValue,
  matchesPrefix,
  prefixMask,
  withDigit,
  wordsToKey,
} from './keys'
export { GATHER_LIMIT, type RadixSource, radixSelect, sumHistograms } from './radix-select'
